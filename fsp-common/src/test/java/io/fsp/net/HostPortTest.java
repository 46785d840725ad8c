package io.fsp.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The one parser of {@code host:port}: configuration, options, FSPO meridian-entry, relay lines, RELAY announcements. */
class HostPortTest {
    @Test
    void readsNamesIpv4AndBracketedIpv6() {
        assertEquals(new HostPort("127.0.0.1", 2121), HostPort.parse("127.0.0.1:2121"));
        assertEquals(new HostPort("localhost", 21), HostPort.parse(" localhost:21 "));
        assertEquals(new HostPort("::1", 0), HostPort.parse("[::1]:0"));
        assertEquals(new HostPort("fe80::1%eth0", 7000), HostPort.parse("[fe80::1%eth0]:7000"));
        assertEquals(65535, HostPort.parse("h:65535").port());
        assertEquals(80, HostPort.parse("h:00080").port());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "nowhere|'nowhere' (expected: HOST:PORT, IPv6 as [::1]:PORT)",
        "::1:7000|'::1:7000' (expected: HOST:PORT, IPv6 as [::1]:PORT)",
        "[::1]7000|'[::1]7000' (expected: [IPv6]:PORT)",
        "[::1|'[::1' (expected: [IPv6]:PORT)",
        "[::1]:|'[::1]:': port '' (expected: 0..65535)",
        "h:|'h:': port '' (expected: 0..65535)",
        "h:65536|'h:65536': port '65536' (expected: 0..65535)",
        "h:+80|'h:+80': port '+80' (expected: 0..65535)",
        "h:-1|'h:-1': port '-1' (expected: 0..65535)",
        "h:8o|'h:8o': port '8o' (expected: 0..65535)",
        "h:999999|'h:999999': port '999999' (expected: 0..65535)",
        ":80|':80': no host (expected: HOST:PORT, IPv6 as [::1]:PORT)",
        "[]:80|'[]:80': no host (expected: HOST:PORT, IPv6 as [::1]:PORT)"})
    void refusesTheRestNamingTheValue(String text, String message) {
        assertEquals(message, assertThrows(IllegalArgumentException.class, () -> HostPort.parse(text)).getMessage());
    }

    @Test
    void peersNeedAPortAboveZero() {
        assertEquals(new HostPort("h", 1), HostPort.parse("h:1").requirePeerPort());
        assertEquals("'[::1]:0': port 0 (expected: 1..65535)",
                assertThrows(IllegalArgumentException.class, () -> HostPort.parse("[::1]:0").requirePeerPort()).getMessage());
    }

    @Test
    void literalAddressesAreReadWithoutResolving() throws Exception {
        assertEquals(Optional.of(InetAddress.getByName("127.0.0.2")), HostPort.parse("127.0.0.2:1").literalAddress());
        assertEquals(Optional.of(InetAddress.getByName("::1")), HostPort.parse("[::1]:1").literalAddress());
        assertEquals(Optional.empty(), HostPort.parse("localhost:1").literalAddress());
        assertEquals(Optional.empty(), HostPort.literal("relay.example"));
        assertEquals(Optional.empty(), HostPort.literal("1.2"), "a short form getByName would take");
        assertEquals(Optional.empty(), HostPort.literal("fe80::1%eth0"), "a scope names an interface of this host");
        assertEquals(Optional.empty(), HostPort.literal("256.0.0.1"));
    }

    @Test
    void printsAsItIsWritten() {
        assertEquals("[::1]:7000", new HostPort("::1", 7000).toString());
        assertEquals("127.0.0.1:7000", HostPort.parse("127.0.0.1:7000").toString());
        assertEquals("[::1]:7000", HostPort.format(new InetSocketAddress("::1", 7000)));
        assertTrue(HostPort.parse("[::1]:7000").toSocketAddress().getAddress().isLoopbackAddress());
    }

    @Test
    void constructorChecksItsParts() {
        assertThrows(IllegalArgumentException.class, () -> new HostPort("", 1));
        assertThrows(IllegalArgumentException.class, () -> new HostPort("h", 65536));
        assertThrows(IllegalArgumentException.class, () -> new HostPort("h", -1));
    }

    @Test
    void hostPortsParseAndPrintAsWritten() {
        assertEquals(new HostPort("::1", 7), HostPort.parse("[::1]:7"));
        assertEquals("[::1]:7", HostPort.parse("[::1]:7").toString());
        assertEquals("[::1]:7", HostPort.format(new java.net.InetSocketAddress("::1", 7)));
        assertEquals(new HostPort("relay.example.org", 7001), HostPort.parse("relay.example.org:7001"));
        for (String bad : List.of("localhost", ":7", "[::1]7", "::1:7", "h:70000", "h:-1", "h:x")) {
            assertThrows(IllegalArgumentException.class, () -> HostPort.parse(bad), bad);
        }
    }
}

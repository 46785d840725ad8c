package io.fsp.server.select;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.extension.Announcement;
import io.fsp.tls.Fingerprint;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CollectRelaysTest {
    private static final Fingerprint OWN = Fingerprint.parse("11:" + "22:".repeat(30) + "33");
    private static final Fingerprint LISTED = Fingerprint.parse("44:" + "55:".repeat(30) + "66");
    private static final Fingerprint TRUSTED = Fingerprint.parse("77:" + "88:".repeat(30) + "99");
    private static final Fingerprint OTHER = Fingerprint.parse("AA:" + "BB:".repeat(30) + "CC");

    private final CollectRelays relays = new CollectRelays(List.of(RelayEndpoint.parse("127.0.0.1:7001=" + OWN)),
            List.of(CollectRelay.parse("127.0.0.2:7002=" + LISTED), CollectRelay.parse("[::1]:7003")), Set.of(TRUSTED));

    private Optional<String> judge(String host, int port, Fingerprint fp) {
        return relays.refusal(new Announcement.Relay(4, host, port, fp));
    }

    @Test
    void allowsTheOperatorsRelaysWithTheirCertificates() {
        assertEquals(Optional.empty(), judge("127.0.0.1", 7001, OWN), "a relay line");
        assertEquals(Optional.empty(), judge("127.0.0.2", 7002, LISTED), "a collect-relay line");
        assertEquals(Optional.empty(), judge("0:0:0:0:0:0:0:1", 7003, TRUSTED), "an address with a trust-relay certificate");
        assertEquals(Optional.empty(), judge("::1", 7003, OWN), "an address with a relay line's certificate");
    }

    @Test
    void refusesEverythingElseNamingTheRelay() {
        assertTrue(judge("127.0.0.1", 7001, LISTED).orElseThrow().contains("relay 4 127.0.0.1:7001: certificate"));
        assertTrue(judge("127.0.0.2", 7002, OWN).orElseThrow().contains("collect-relay line there"));
        assertTrue(judge("::1", 7003, OTHER).orElseThrow().contains("relay 4 [::1]:7003: certificate"));
        assertTrue(judge("127.0.0.3", 7001, OWN).orElseThrow().contains("not a relay this server may collect from"),
                "a trusted certificate at another address");
        assertTrue(judge("127.0.0.1", 7009, OWN).orElseThrow().contains("not a relay this server may collect from"));
        assertTrue(judge("localhost", 7001, OWN).orElseThrow().contains("not a literal IP address"));
        assertTrue(judge("fe80::1%eth0", 7001, OWN).orElseThrow().contains("not a literal IP address"));
    }

    @Test
    void collectRelayLinesAreLiteralAddresses() {
        assertEquals("127.0.0.2:7002=" + LISTED, CollectRelay.parse(" 127.0.0.2:7002 = " + LISTED).toString());
        assertEquals("[::1]:7003", CollectRelay.parse("[::1]:7003").toString());
        assertThrows(IllegalArgumentException.class, () -> CollectRelay.parse("relay.example:7001"));
        assertThrows(IllegalArgumentException.class, () -> CollectRelay.parse("127.0.0.1"));
        assertThrows(IllegalArgumentException.class, () -> CollectRelay.parse("127.0.0.1:0"));
    }
}

package io.fsp.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class AddressPrefixTest {
    private static InetAddress ip(String s) throws Exception {
        return InetAddress.getByName(s);
    }

    @Test
    void aHostIsAnIpv4AddressOrAnIpv6Slash64() throws Exception {
        assertEquals(ip("192.0.2.7"), AddressPrefix.host(ip("192.0.2.7")));
        assertNotEquals(AddressPrefix.host(ip("192.0.2.7")), AddressPrefix.host(ip("192.0.2.8")));
        assertEquals(ip("2001:db8:1:2::"), AddressPrefix.host(ip("2001:db8:1:2:a:b:c:d")));
        assertEquals(AddressPrefix.host(ip("2001:db8:1:2::1")), AddressPrefix.host(ip("2001:db8:1:2:ffff:ffff:ffff:ffff")),
                "every address of one /64 is one host");
        assertNotEquals(AddressPrefix.host(ip("2001:db8:1:2::1")), AddressPrefix.host(ip("2001:db8:1:3::1")));
        assertEquals(ip("::"), AddressPrefix.host(ip("::1")));
        assertEquals(ip("192.0.2.7"), AddressPrefix.host(ip("::ffff:192.0.2.7")), "an IPv4-mapped address is IPv4");
    }

    @Test
    void aSiteIsAnIpv4Slash24OrAnIpv6Slash48() throws Exception {
        assertEquals(ip("192.0.2.0"), AddressPrefix.site(ip("192.0.2.201")));
        assertNotEquals(AddressPrefix.site(ip("192.0.2.1")), AddressPrefix.site(ip("192.0.3.1")));
        assertEquals(ip("2001:db8:1::"), AddressPrefix.site(ip("2001:db8:1:ffff::9")));
        assertNotEquals(AddressPrefix.site(ip("2001:db8:1::1")), AddressPrefix.site(ip("2001:db8:2::1")));
    }

    @Test
    void prefixesAtBitsWithinAByteAndOutOfRange() throws Exception {
        assertEquals(ip("10.0.0.0"), AddressPrefix.of(ip("10.127.255.255"), 9, 64));
        assertEquals(ip("10.128.0.0"), AddressPrefix.of(ip("10.255.1.1"), 9, 64));
        assertEquals(ip("0.0.0.0"), AddressPrefix.of(ip("10.255.1.1"), 0, 64));
        assertEquals(ip("2001:db8::"), AddressPrefix.of(ip("2001:db8:ff::"), 24, 36));
        assertThrows(IllegalArgumentException.class, () -> AddressPrefix.of(ip("10.0.0.1"), 33, 64));
        assertThrows(IllegalArgumentException.class, () -> AddressPrefix.of(ip("::1"), 32, 129));
    }

    @Test
    void privateNetworksAreTheRfc1918LinkLocalAndUniqueLocalOnes() throws Exception {
        for (String a : new String[] {"10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.0.9",
                "fd00::1", "fc00::1", "fe80::1"}) {
            assertTrue(AddressPrefix.privateNetwork(ip(a)), a);
        }
        for (String a : new String[] {"192.0.2.1", "172.32.0.1", "8.8.8.8", "127.0.0.1", "2001:db8::1", "::1",
                "fe00::1"}) {
            assertFalse(AddressPrefix.privateNetwork(ip(a)), a);
        }
    }
}

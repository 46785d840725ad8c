package io.fsp.meridian.net;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** The per-source rate counts an IPv6 host by its /64: new addresses of one /64 bring no new tokens. */
class SourceRateLimitTest {
    @Test
    void theAddressesOfOneIpv6Slash64ShareOneBucket() throws Exception {
        SourceRateLimit limit = new SourceRateLimit(1); // a burst of 2
        long now = 1_000_000_000L;
        assertTrue(limit.allow(InetAddress.getByName("2001:db8:0:1::1"), now));
        assertTrue(limit.allow(InetAddress.getByName("2001:db8:0:1::2"), now));
        assertFalse(limit.allow(InetAddress.getByName("2001:db8:0:1:ffff::3"), now), "the same /64, its burst spent");
        assertTrue(limit.allow(InetAddress.getByName("2001:db8:0:2::1"), now), "another /64 has its own");
        assertTrue(limit.allow(InetAddress.getByName("192.0.2.1"), now));
        assertTrue(limit.allow(InetAddress.getByName("192.0.2.2"), now), "IPv4 addresses are counted one by one");
    }
}

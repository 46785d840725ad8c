package io.fsp.meridian.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.meridian.wire.MeridianMessage;
import io.fsp.meridian.wire.MeridianMessage.RingsRequest;
import io.fsp.meridian.wire.MeridianMessage.ServiceRequest;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pieces of the return-address check (docs/protocol.md §4.3): cookies, the per-IP rate, the sender's resends. */
class ReturnAddressTest {
    private static final InetSocketAddress A = new InetSocketAddress("192.0.2.1", 7400);
    private static final long MINUTE = ReturnCookies.BUCKET_NANOS;

    @Test
    void aCookieIsValidForItsAddressOnlyAndForTwoMinutesAtMost() {
        ReturnCookies cookies = new ReturnCookies();
        long t = 10 * MINUTE + 5;
        long c = cookies.issue(A, t);
        assertTrue(cookies.valid(A, c, t));
        assertTrue(cookies.valid(A, c, t + MINUTE), "still in the next minute");
        assertFalse(cookies.valid(A, c, t + 2 * MINUTE), "stale after that");
        assertFalse(cookies.valid(new InetSocketAddress("192.0.2.1", 7401), c, t), "another port");
        assertFalse(cookies.valid(new InetSocketAddress("192.0.2.2", 7400), c, t), "another address");
        assertFalse(cookies.valid(A, 0, t), "no cookie");
        assertFalse(new ReturnCookies().valid(A, c, t), "another process's secret");
        assertNotEquals(c, cookies.issue(A, t + MINUTE));
    }

    @Test
    void anAddressGetsItsBurstThenItsRateAndOthersAreNotTouched() throws Exception {
        SourceRateLimit limit = new SourceRateLimit(100);
        InetAddress a = InetAddress.getByName("192.0.2.1");
        int allowed = 0;
        for (int i = 0; i < 1000; i++) {
            allowed += limit.allow(a, 0) ? 1 : 0;
        }
        assertEquals(200, allowed, "a burst of two seconds' worth");
        assertFalse(limit.allow(a, 5_000_000), "half a token after 5 ms");
        assertTrue(limit.allow(a, 10_000_000), "one token after 10 ms at 100/s");
        assertTrue(limit.allow(InetAddress.getByName("2001:db8::1"), 10_000_000), "another address has its own");
    }

    @Test
    void aPeersCookieMakesItsRecentRequestsGoAgainOnceEach() {
        PeerCookies peers = new PeerCookies();
        MeridianMessage first = new RingsRequest(1);
        MeridianMessage second = new ServiceRequest(2);
        assertEquals(0, peers.sending(A, first, 0), "no cookie before the peer gave one");
        peers.sending(A, second, PeerCookies.RESEND_WINDOW_NANOS);
        assertEquals(List.of(), peers.cookie(new InetSocketAddress("192.0.2.9", 7400), 42, 0),
                "a COOKIE from a peer never asked is ignored");
        assertEquals(List.of(second), peers.cookie(A, 42, PeerCookies.RESEND_WINDOW_NANOS + 1),
                "the request older than the window is dropped, the other goes again");
        assertEquals(List.of(), peers.cookie(A, 43, PeerCookies.RESEND_WINDOW_NANOS + 2), "and only once");
        assertEquals(43, peers.sending(A, first, PeerCookies.RESEND_WINDOW_NANOS + 3), "later requests carry the cookie");
    }
}

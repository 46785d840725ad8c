package io.fsp.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LoginThrottleTest {
    private static final Duration BASE = Duration.ofMillis(100);

    @Test
    void delaysDoubleUpToSixteenTimesAndASuccessClears() throws Exception {
        LoginThrottle t = new LoginThrottle(BASE);
        InetAddress a = InetAddress.getByName("192.0.2.1");
        long[] expected = {100, 200, 400, 800, 1600, 1600};
        for (long ms : expected) {
            assertEquals(Duration.ofMillis(ms), t.failed(a));
        }
        t.succeeded(a);
        assertEquals(BASE, t.failed(a));
    }

    /** A flood of new addresses pushes out the least recently failed ones, not everything known. */
    @Test
    void aFullTableForgetsTheLeastRecentlyFailedAddressNotAll() throws Exception {
        LoginThrottle t = new LoginThrottle(BASE, 100);
        InetAddress guesser = InetAddress.getByName("198.51.100.7");
        for (int i = 0; i < 4; i++) {
            t.failed(guesser);
        }
        for (int i = 0; i < 1000; i++) {
            t.failed(InetAddress.getByAddress(new byte[] {10, 0, (byte) (i >> 8), (byte) i}));
            if (i % 50 == 0) {
                t.failed(guesser); // still guessing, so never the least recent
            }
        }
        assertEquals(BASE.multipliedBy(16), t.failed(guesser), "the guesser is still throttled at the most");
        InetAddress first = InetAddress.getByAddress(new byte[] {10, 0, 0, 0});
        assertEquals(BASE, t.failed(first), "the oldest of the flood was forgotten");
    }
}

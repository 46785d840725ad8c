package io.fsp.server.ftp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The token bucket of checksum bytes, on a clock the test moves. */
class ChecksumAllowanceTest {
    private final AtomicLong now = new AtomicLong(123_456_789);

    private void advanceSeconds(double seconds) {
        now.addAndGet((long) (seconds * TimeUnit.SECONDS.toNanos(1)));
    }

    @Test
    void startsFullAndLetsOneReadGoBelowZero() {
        ChecksumAllowance a = new ChecksumAllowance(100, 1000, now::get);
        assertEquals(0, a.secondsToWait());
        a.charge(999);
        assertEquals(0, a.secondsToWait(), "one byte left: a checksum may start");
        a.charge(5000); // a large file, charged in full
        assertEquals(50, a.secondsToWait(), "4999 bytes below zero, then one byte, at 100 bytes/s");
        advanceSeconds(49.9);
        assertEquals(1, a.secondsToWait());
        advanceSeconds(0.2);
        assertEquals(0, a.secondsToWait());
    }

    @Test
    void refillsNoFurtherThanTheBurst() {
        ChecksumAllowance a = new ChecksumAllowance(1_000_000, 1000, now::get);
        advanceSeconds(3600);
        a.charge(1000);
        assertEquals(1, a.secondsToWait(), "an hour idle still holds only the burst");
        advanceSeconds(1e-6 * 2);
        assertEquals(0, a.secondsToWait());
    }

    @Test
    void survivesHugeValues() {
        ChecksumAllowance a = new ChecksumAllowance(Long.MAX_VALUE, Long.MAX_VALUE, now::get);
        a.charge(Long.MAX_VALUE);
        advanceSeconds(1);
        assertEquals(0, a.secondsToWait());
        ChecksumAllowance slow = new ChecksumAllowance(1, 1, now::get);
        slow.charge(Long.MAX_VALUE);
        assertEquals(Long.MAX_VALUE, slow.secondsToWait(), "waits as long as a long can say");
    }

    @Test
    void refusesEmptySettings() {
        assertThrows(IllegalArgumentException.class, () -> new ChecksumAllowance(0, 1, now::get));
        assertThrows(IllegalArgumentException.class, () -> new ChecksumAllowance(1, 0, now::get));
    }
}

package io.fsp.server.ftp;

import java.util.function.LongSupplier;

/**
 * How many bytes one control connection's checksum commands (HASH, XCRC…, CKSM) may still read: a token
 * bucket that holds at most {@code burst} bytes and refills at {@code rate} bytes per second. A checksum may
 * start while the bucket is not empty and is charged every byte it reads, so one large file can take the
 * bucket below zero; the next one waits until it refilled. Over any time T a connection thus reads at most
 * {@code burst + rate × T} bytes plus one file, which bounds the CPU and disk a client can make the server
 * spend on digests however it asks. Charged from the reading thread, checked on the event loop.
 */
public final class ChecksumAllowance {
    private final long rate;
    private final long burst;
    private final LongSupplier nanoTime;
    /** Bytes in the bucket, negative after a large read; a double, so that refills need no overflow checks. */
    private double available;
    private long updatedNanos;

    /**
     * @param rate     bytes per second the bucket refills with (at least 1)
     * @param burst    bytes the bucket holds at most (at least 1); it starts full
     * @param nanoTime the clock, {@link System#nanoTime()} outside tests
     */
    public ChecksumAllowance(long rate, long burst, LongSupplier nanoTime) {
        if (rate < 1 || burst < 1) {
            throw new IllegalArgumentException("rate: " + rate + ", burst: " + burst + " (expected: >= 1 each)");
        }
        this.rate = rate;
        this.burst = burst;
        this.nanoTime = nanoTime;
        this.available = burst;
        this.updatedNanos = nanoTime.getAsLong();
    }

    /** Seconds until a checksum may start: 0 if it may start now. */
    public synchronized long secondsToWait() {
        refill();
        return available > 0 ? 0 : Math.max(1, (long) Math.ceil((1 - available) / rate));
    }

    /** Takes {@code bytes} a checksum read from the bucket. */
    public synchronized void charge(long bytes) {
        refill();
        available -= bytes;
    }

    private void refill() {
        long now = nanoTime.getAsLong();
        available = Math.min(burst, available + (now - updatedNanos) * (rate / 1e9));
        updatedNanos = now;
    }
}

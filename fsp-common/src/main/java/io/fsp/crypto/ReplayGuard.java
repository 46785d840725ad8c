package io.fsp.crypto;

import java.util.HashMap;
import java.util.Map;

/**
 * Remembers which block sequence numbers a receiver has accepted, so a block replayed by a relay is refused.
 * Blocks legitimately arrive out of order from many relays, so this is a set, not a window. Record a number
 * only after the block authenticated (then only numbers the sender really used are stored, and memory grows
 * with the blocks of the transfer: one bit each). Thread-safe.
 */
public final class ReplayGuard {
    private static final int PAGE_BITS = 4096;
    private final Map<Long, long[]> pages = new HashMap<>();

    /** Records {@code sequence}; false if it was already recorded. */
    public synchronized boolean accept(long sequence) {
        long[] page = pages.computeIfAbsent(sequence / PAGE_BITS, k -> new long[PAGE_BITS / 64]);
        int bit = (int) (sequence % PAGE_BITS);
        long mask = 1L << (bit & 63);
        if ((page[bit >>> 6] & mask) != 0) {
            return false;
        }
        page[bit >>> 6] |= mask;
        return true;
    }

    /** Whether {@code sequence} was accepted. */
    public synchronized boolean seen(long sequence) {
        long[] page = pages.get(sequence / PAGE_BITS);
        int bit = (int) (sequence % PAGE_BITS);
        return page != null && (page[bit >>> 6] & (1L << (bit & 63))) != 0;
    }

    /** Lets {@code sequence} be accepted again, e.g. when its data failed to reach the disk and is fetched anew. */
    public synchronized void forget(long sequence) {
        long[] page = pages.get(sequence / PAGE_BITS);
        if (page != null) {
            int bit = (int) (sequence % PAGE_BITS);
            page[bit >>> 6] &= ~(1L << (bit & 63));
        }
    }
}

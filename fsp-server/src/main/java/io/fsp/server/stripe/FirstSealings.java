package io.fsp.server.stripe;

import io.fsp.checksum.Digest;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * The plaintext digest of each block's first sealing, so that a later sealing (an origin re-fetch) can prove
 * it encrypts the same bytes: the same key and sequence number mean the same AES-GCM nonce, safe only for the
 * same plaintext. The values are kept in pages of {@value #PAGE} digests, each allocated when a block of it is
 * first sealed: a plan costs nothing here before its blocks are read, and a sealed block costs its digest's
 * bytes, no object.
 */
final class FirstSealings {
    static final int PAGE = 4096;

    private record Page(byte[] values, BitSet present) {
    }

    private final Map<Long, Page> pages = new HashMap<>();
    private int length = -1;

    /**
     * Records {@code digest} as block {@code seq}'s if it is the first; true if it is the first or equals the
     * first. A block sealed without a digest cannot be compared (nothing is recorded, true).
     */
    synchronized boolean sealed(long seq, Digest digest) {
        if (digest == null) {
            return true;
        }
        byte[] value = digest.value();
        if (length < 0) {
            length = value.length; // one digest algorithm per transfer
        } else if (value.length != length) {
            return false;
        }
        Page page = pages.computeIfAbsent(seq / PAGE, p -> new Page(new byte[PAGE * length], new BitSet(PAGE)));
        int slot = (int) (seq % PAGE);
        int from = slot * length;
        if (!page.present().get(slot)) {
            System.arraycopy(value, 0, page.values(), from, length);
            page.present().set(slot);
            return true;
        }
        return Arrays.equals(page.values(), from, from + length, value, 0, length);
    }

    /** Pages allocated so far (each holds {@value #PAGE} digests). */
    synchronized int pages() {
        return pages.size();
    }
}

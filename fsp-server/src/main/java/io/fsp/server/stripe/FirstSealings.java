package io.fsp.server.stripe;

import io.fsp.checksum.Digest;
import java.util.Arrays;

/**
 * The plaintext digest of each block's first sealing, so that a later sealing (an origin re-fetch) can prove
 * it encrypts the same bytes: the same key and sequence number mean the same AES-GCM nonce, safe only for the
 * same plaintext. The values are kept in pages of {@value #PAGE} digests allocated as blocks are first sealed,
 * so a plan costs nothing here before its blocks are read, and a sealed block costs its digest's bytes, no object.
 */
final class FirstSealings {
    static final int PAGE = 4096;

    private final byte[][] pages;
    private final boolean[][] present;
    private int length = -1;

    FirstSealings(long blocks) {
        int n = Math.toIntExact((blocks + PAGE - 1) / PAGE);
        this.pages = new byte[n][];
        this.present = new boolean[n][];
    }

    /**
     * Records {@code digest} as block {@code seq}'s if it is the first; true if it is the first or equals the
     * first. A block sealed without a digest cannot be compared (nothing is recorded, true).
     */
    synchronized boolean sealed(long seq, Digest digest) {
        if (digest == null) {
            return true;
        }
        int page = (int) (seq / PAGE);
        int slot = (int) (seq % PAGE);
        byte[] value = digest.value();
        if (length < 0) {
            length = value.length; // one digest algorithm per transfer
        } else if (value.length != length) {
            return false;
        }
        if (pages[page] == null) {
            pages[page] = new byte[PAGE * value.length];
            present[page] = new boolean[PAGE];
        }
        int from = slot * value.length;
        if (!present[page][slot]) {
            System.arraycopy(value, 0, pages[page], from, value.length);
            present[page][slot] = true;
            return true;
        }
        return Arrays.equals(pages[page], from, from + value.length, value, 0, value.length);
    }

    /** Pages allocated so far (each holds {@value #PAGE} digests). */
    synchronized int pagesAllocated() {
        int n = 0;
        for (byte[] p : pages) {
            n += p == null ? 0 : 1;
        }
        return n;
    }
}

package io.fsp.crypto;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Hands out block sequence numbers, and derives the AES-GCM nonce of a block from its transfer id and
 * sequence number: {@code nonce = transferId (8 bytes, big-endian) || sequence (4 bytes, big-endian)}.
 *
 * <p>GCM breaks if a nonce repeats under one key, so every block that is encrypted takes a new number from
 * the one {@code NonceSequence} of its {@link TransferKey}; a block sent again is either forwarded as the
 * same bytes or encrypted afresh under a new number. Thread-safe: one instance may feed several encoders.
 */
public final class NonceSequence {
    /** Sequence numbers are 32 bits on the wire. */
    public static final long MAX_SEQUENCE = 0xFFFF_FFFFL;
    public static final int NONCE_LENGTH = 12;

    private final AtomicLong next;

    public NonceSequence() {
        this(0);
    }

    /** Starts at {@code first}, e.g. to continue a resumed transfer after the last number it used. */
    public NonceSequence(long first) {
        if (first < 0 || first > MAX_SEQUENCE) {
            throw new IllegalArgumentException("first sequence: " + first + " (expected: 0.." + MAX_SEQUENCE + ")");
        }
        this.next = new AtomicLong(first);
    }

    /** The next unused sequence number. */
    public long next() {
        long s = next.getAndIncrement();
        if (s > MAX_SEQUENCE) {
            next.set(MAX_SEQUENCE + 1);
            throw new IllegalStateException("sequence: " + s + " (expected: <= " + MAX_SEQUENCE
                    + "); start a new transfer key");
        }
        return s;
    }

    /** Writes the 12-byte nonce of block {@code sequence} of transfer {@code transferId} into {@code out}. */
    public static void nonce(long transferId, long sequence, byte[] out) {
        if (sequence < 0 || sequence > MAX_SEQUENCE) {
            throw new IllegalArgumentException("sequence: " + sequence + " (expected: 0.." + MAX_SEQUENCE + ")");
        }
        for (int i = 0; i < 8; i++) {
            out[i] = (byte) (transferId >>> (56 - 8 * i));
        }
        out[8] = (byte) (sequence >>> 24);
        out[9] = (byte) (sequence >>> 16);
        out[10] = (byte) (sequence >>> 8);
        out[11] = (byte) sequence;
    }

    public static byte[] nonce(long transferId, long sequence) {
        byte[] out = new byte[NONCE_LENGTH];
        nonce(transferId, sequence, out);
        return out;
    }
}

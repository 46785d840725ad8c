package io.fsp.crypto;

import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.spec.SecretKeySpec;

/**
 * The AES key of one transfer, bound to that transfer's id. The server generates it, sends
 * {@link #encoded()} to the client over the TLS control channel, and never to a relay. Because every nonce
 * is derived from the transfer id and a block sequence number (see {@link NonceSequence}), one key must
 * never serve two transfers with the same id.
 */
public final class TransferKey {
    private final long transferId;
    private final byte[] key;
    private final SecretKeySpec spec;

    private TransferKey(long transferId, byte[] key) {
        if (key.length != 16 && key.length != 32) {
            throw new IllegalArgumentException("key length: " + key.length + " bytes (expected: 16 or 32)");
        }
        this.transferId = transferId;
        this.key = key.clone();
        this.spec = new SecretKeySpec(this.key, "AES");
    }

    /** A fresh random key of 128 or 256 bits. */
    public static TransferKey generate(long transferId, int bits, SecureRandom random) {
        if (bits != 128 && bits != 256) {
            throw new IllegalArgumentException("key bits: " + bits + " (expected: 128 or 256)");
        }
        byte[] k = new byte[bits / 8];
        random.nextBytes(k);
        return new TransferKey(transferId, k);
    }

    /** A key received over the control channel. */
    public static TransferKey of(long transferId, byte[] key) {
        return new TransferKey(transferId, key);
    }

    public long transferId() {
        return transferId;
    }

    public int bits() {
        return key.length * 8;
    }

    /** The raw key, for the control channel only. */
    public byte[] encoded() {
        return key.clone();
    }

    /** The key for the JDK provider. */
    public SecretKeySpec secretKey() {
        return spec;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TransferKey k && k.transferId == transferId && Arrays.equals(k.key, key);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(transferId);
    }

    /** Never prints the key. */
    @Override
    public String toString() {
        return "TransferKey[transfer=" + Long.toHexString(transferId) + ", AES-" + bits() + "]";
    }
}

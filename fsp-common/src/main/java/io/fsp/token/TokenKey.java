package io.fsp.token;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * The per-transfer HMAC-SHA256 key from which capability tokens are made. The server draws a fresh one for
 * each transfer and gives it only to the relays it trusts; {@link #toString()} never shows the key.
 */
public final class TokenKey {
    public static final int LENGTH = 32;
    private static final SecureRandom RANDOM = new SecureRandom();
    private final byte[] key;

    public TokenKey(byte[] key) {
        if (key.length != LENGTH) {
            throw new IllegalArgumentException("tokenKey: " + key.length + " bytes (expected: " + LENGTH + ")");
        }
        this.key = key.clone();
    }

    public static TokenKey random() {
        byte[] b = new byte[LENGTH];
        RANDOM.nextBytes(b);
        return new TokenKey(b);
    }

    public byte[] bytes() {
        return key.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TokenKey k && MessageDigest.isEqual(key, k.key);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key);
    }

    @Override
    public String toString() {
        return "TokenKey[hidden]";
    }
}

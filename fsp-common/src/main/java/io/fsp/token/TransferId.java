package io.fsp.token;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;

/** 16 random bytes that name one striped transfer at every relay it uses. */
public record TransferId(byte[] bytes) {
    public static final int LENGTH = 16;
    private static final SecureRandom RANDOM = new SecureRandom();

    public TransferId {
        if (bytes.length != LENGTH) {
            throw new IllegalArgumentException("transferId: " + bytes.length + " bytes (expected: " + LENGTH + ")");
        }
        bytes = bytes.clone();
    }

    public static TransferId random() {
        byte[] b = new byte[LENGTH];
        RANDOM.nextBytes(b);
        return new TransferId(b);
    }

    /** Parses the 32 hex digits {@link #toString()} prints. */
    public static TransferId parse(String hex) {
        if (hex.length() != LENGTH * 2) {
            throw new IllegalArgumentException("transferId '" + hex + "': " + hex.length()
                    + " hex digits (expected: " + LENGTH * 2 + ")");
        }
        return new TransferId(HexFormat.of().parseHex(hex));
    }

    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TransferId t && Arrays.equals(bytes, t.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return HexFormat.of().formatHex(bytes);
    }
}

package io.fsp.token;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * 64 random bits that name one striped transfer: the same value travels in every block header (docs/protocol.md
 * §2) and in every relay frame, so a relay can check that a block belongs where it is put.
 */
public record TransferId(long value) {
    public static final int LENGTH = 8;
    private static final SecureRandom RANDOM = new SecureRandom();

    public static TransferId random() {
        return new TransferId(RANDOM.nextLong());
    }

    /** Parses the 16 hex digits {@link #toString()} prints. */
    public static TransferId parse(String hex) {
        if (hex.length() != LENGTH * 2) {
            throw new IllegalArgumentException("transferId '" + hex + "': " + hex.length()
                    + " hex digits (expected: " + LENGTH * 2 + ")");
        }
        return new TransferId(HexFormat.fromHexDigitsToLong(hex));
    }

    /** Big-endian, as on the wire. */
    public byte[] bytes() {
        return ByteBuffer.allocate(LENGTH).putLong(value).array();
    }

    @Override
    public String toString() {
        return HexFormat.of().toHexDigits(value);
    }
}

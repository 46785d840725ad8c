package io.fsp.checksum;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A checksum or digest value. The array is copied in and out, and compared by content (a record would
 * compare it by identity). {@link #toString()} gives {@code "sha256:<hex>"}, which {@link #parse} reads back.
 */
public record Digest(ChecksumAlgorithm algorithm, byte[] value) {
    private static final HexFormat HEX = HexFormat.of();

    public Digest {
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(value, "value");
        if (value.length != algorithm.length()) {
            throw new IllegalArgumentException(algorithm.label() + " value length: " + value.length
                    + " (expected: " + algorithm.length() + ")");
        }
        value = value.clone();
    }

    /** Reads a value of {@code algorithm.length()} bytes at {@code index}, without moving the indices. */
    public static Digest read(ChecksumAlgorithm algorithm, ByteBuf buf, int index) {
        byte[] v = new byte[algorithm.length()];
        buf.getBytes(index, v);
        return new Digest(algorithm, v);
    }

    /** Parses {@code "<algorithm>:<hex>"} as written by {@link #toString()}. */
    public static Digest parse(String text) {
        int colon = text.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("digest: " + text + " (expected: <algorithm>:<hex>)");
        }
        return new Digest(ChecksumAlgorithm.fromLabel(text.substring(0, colon)), HEX.parseHex(text, colon + 1, text.length()));
    }

    @Override
    public byte[] value() {
        return value.clone();
    }

    /** Writes the value at the writer index. */
    public void writeTo(ByteBuf out) {
        out.writeBytes(value);
    }

    /** Whether the bytes at {@code index} in {@code buf} equal this value. */
    public boolean matches(ByteBuf buf, int index) {
        if (buf.capacity() - index < value.length) {
            return false;
        }
        int diff = 0;
        for (int i = 0; i < value.length; i++) {
            diff |= value[i] ^ buf.getByte(index + i);
        }
        return diff == 0;
    }

    public String hex() {
        return HEX.formatHex(value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Digest d && d.algorithm == algorithm && Arrays.equals(d.value, value);
    }

    @Override
    public int hashCode() {
        return 31 * algorithm.hashCode() + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return algorithm.label() + ":" + hex();
    }
}

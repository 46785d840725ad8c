package io.fsp.checksum;

import io.fsp.crypto.NativeCrypto;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.zip.Adler32;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

/**
 * The checksum and digest algorithms FSP can put on the wire. The {@link #id()} is the byte that names the
 * algorithm in a block header (docs/protocol.md §2); it never changes once assigned.
 */
public enum ChecksumAlgorithm {
    /** Default wire checksum: hardware-accelerated, detects every burst error up to 32 bits. */
    CRC32C(1, 4, "crc32c"),
    ADLER32(2, 4, "adler32"),
    CRC32(3, 4, "crc32"),
    MD5(4, 16, "md5"),
    SHA1(5, 20, "sha1"),
    SHA256(6, 32, "sha256"),
    BLAKE3(7, 32, "blake3");

    private static final ChecksumAlgorithm[] BY_ID = new ChecksumAlgorithm[8];

    static {
        for (ChecksumAlgorithm a : values()) {
            BY_ID[a.id] = a;
        }
    }

    private final int id;
    private final int length;
    private final String label;

    ChecksumAlgorithm(int id, int length, String label) {
        this.id = id;
        this.length = length;
        this.label = label;
    }

    /** The wire identifier (1..255). */
    public int id() {
        return id;
    }

    /** Length of a value in bytes. */
    public int length() {
        return length;
    }

    /** Lower-case name used in configuration and in {@link Digest#toString()}, e.g. {@code "sha256"}. */
    public String label() {
        return label;
    }

    /** The algorithm with this wire id, or {@code null} if the id is unknown. */
    public static ChecksumAlgorithm fromId(int id) {
        return id > 0 && id < BY_ID.length ? BY_ID[id] : null;
    }

    /** Parses a label ({@code "crc32c"}, {@code "SHA-256"}, {@code "sha256"} …), ignoring case and dashes. */
    public static ChecksumAlgorithm fromLabel(String text) {
        String wanted = text.toLowerCase(Locale.ROOT).replace("-", "").replace("_", "");
        for (ChecksumAlgorithm a : values()) {
            if (a.label.equals(wanted)) {
                return a;
            }
        }
        throw new IllegalArgumentException("checksum algorithm: " + text
                + " (expected: one of crc32c, adler32, crc32, md5, sha1, sha256, blake3)");
    }

    /** A fresh, not thread-safe hasher for this algorithm. */
    public Hasher newHasher() {
        switch (this) {
            case CRC32C: return JdkHasher.of(this, new CRC32C());
            case ADLER32: return JdkHasher.of(this, new Adler32());
            case CRC32: return JdkHasher.of(this, new CRC32());
            case MD5: return JdkHasher.of(this, messageDigest("MD5"));
            case SHA1: return JdkHasher.of(this, messageDigest("SHA-1"));
            case SHA256: return JdkHasher.of(this, messageDigest("SHA-256"));
            case BLAKE3: return new Blake3Hasher();
            default: throw new AssertionError(this);
        }
    }

    private static MessageDigest messageDigest(String name) {
        try {
            return NativeCrypto.messageDigest(name);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java 17 runtime provides " + name, e);
        }
    }
}

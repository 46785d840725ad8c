package io.fsp.server.ftp;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Hasher;
import io.fsp.crypto.NativeCrypto;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;

/**
 * The algorithms the checksum commands compute over a file: HASH (draft-bryan-ftpext-hash §3, by the names
 * of its FEAT line), XCRC/XMD5/XSHA1/XSHA256/XSHA512 and GridFTP's CKSM (by GridFTP's names: the HASH name
 * without its dash). ADLER32 is GridFTP's alone; HASH does not offer it.
 */
public enum HashAlgorithm {
    SHA_256("SHA-256", ChecksumAlgorithm.SHA256),
    SHA_512("SHA-512", null),
    SHA_1("SHA-1", ChecksumAlgorithm.SHA1),
    MD5("MD5", ChecksumAlgorithm.MD5),
    CRC32("CRC32", ChecksumAlgorithm.CRC32),
    ADLER32("ADLER32", ChecksumAlgorithm.ADLER32);

    private final String ftpName;
    /** The wire algorithm that computes it, or null for SHA-512, which the block format has no id for. */
    private final ChecksumAlgorithm checksum;

    HashAlgorithm(String ftpName, ChecksumAlgorithm checksum) {
        this.ftpName = ftpName;
        this.checksum = checksum;
    }

    /** The name in HASH replies, {@code OPTS HASH} and FEAT ({@code "SHA-256"}). */
    public String ftpName() {
        return ftpName;
    }

    /** GridFTP's name for CKSM ({@code "SHA256"}, {@code "ADLER32"}). */
    public String gridFtpName() {
        return ftpName.replace("-", "");
    }

    /** Whether HASH offers it (FEAT, {@code OPTS HASH}). */
    public boolean offeredByHash() {
        return this != ADLER32;
    }

    /** A HASH algorithm by its name, any case. */
    public static Optional<HashAlgorithm> byName(String name) {
        String n = name.strip().toUpperCase(Locale.ROOT);
        for (HashAlgorithm a : values()) {
            if (a.offeredByHash() && a.ftpName.equals(n)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }

    /** A CKSM algorithm by its GridFTP name, any case. */
    public static Optional<HashAlgorithm> byGridFtpName(String name) {
        String n = name.toUpperCase(Locale.ROOT);
        for (HashAlgorithm a : values()) {
            if (a.gridFtpName().equals(n)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }

    /** A fresh digest of this algorithm (not thread-safe), native where {@link NativeCrypto} has it. */
    public Digester newDigester() {
        if (checksum != null) {
            Hasher hasher = checksum.newHasher();
            return new Digester() {
                @Override
                public void update(ByteBuffer bytes) {
                    hasher.update(bytes);
                }

                @Override
                public String hex() {
                    return hasher.finish().hex();
                }
            };
        }
        MessageDigest md;
        try {
            md = NativeCrypto.messageDigest("SHA-512");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java 17 runtime provides SHA-512", e);
        }
        return new Digester() {
            @Override
            public void update(ByteBuffer bytes) {
                md.update(bytes.duplicate()); // MessageDigest moves what it is given
            }

            @Override
            public String hex() {
                return HexFormat.of().formatHex(md.digest());
            }
        };
    }

    /** Incremental computation of one value. */
    public interface Digester {
        /** Feeds the buffer's remaining bytes without moving its position, as {@link Hasher} does. */
        void update(ByteBuffer bytes);

        /** The value in lower-case hex. */
        String hex();
    }
}

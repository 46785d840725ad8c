package io.fsp.server.ftp;

import java.util.Locale;
import java.util.Optional;

/** The algorithms of the HASH command (draft-bryan-ftpext-hash §3), by their FEAT names. */
public enum HashAlgorithm {
    SHA_256("SHA-256", "SHA-256"),
    SHA_1("SHA-1", "SHA-1"),
    MD5("MD5", "MD5"),
    CRC32("CRC32", null);

    private final String ftpName;
    private final String jcaName;

    HashAlgorithm(String ftpName, String jcaName) {
        this.ftpName = ftpName;
        this.jcaName = jcaName;
    }

    public String ftpName() {
        return ftpName;
    }

    /** The {@link java.security.MessageDigest} name, or {@code null} for CRC32. */
    public String jcaName() {
        return jcaName;
    }

    public static Optional<HashAlgorithm> byName(String name) {
        String n = name.strip().toUpperCase(Locale.ROOT);
        for (HashAlgorithm a : values()) {
            if (a.ftpName.equals(n)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }
}

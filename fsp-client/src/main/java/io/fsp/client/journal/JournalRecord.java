package io.fsp.client.journal;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/** One verified block: where it is and the digest it was verified against. */
public record JournalRecord(String path, long offset, int length, byte[] digest) {
    public JournalRecord {
        Objects.requireNonNull(path, "path");
        if (offset < 0) {
            throw new IllegalArgumentException("offset: " + offset + " (expected: >= 0)");
        }
        if (length < 0) {
            throw new IllegalArgumentException("length: " + length + " (expected: >= 0)");
        }
        if (digest.length > ResumeJournal.MAX_DIGEST_BYTES) {
            throw new IllegalArgumentException("digest: " + digest.length + " bytes (expected: <= " + ResumeJournal.MAX_DIGEST_BYTES + ")");
        }
        digest = digest.clone();
    }

    @Override
    public byte[] digest() {
        return digest.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JournalRecord r && offset == r.offset && length == r.length && path.equals(r.path)
                && Arrays.equals(digest, r.digest);
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, offset, length, Arrays.hashCode(digest));
    }

    @Override
    public String toString() {
        return path + "@" + offset + "+" + length + " " + HexFormat.of().formatHex(digest);
    }
}

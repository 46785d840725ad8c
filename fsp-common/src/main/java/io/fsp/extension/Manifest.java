package io.fsp.extension;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The files of a transfer, as its FILE lines announce them (index order). Its {@link #digest()} names the
 * transfer's content: a resuming client and the server compare it (FHAV), and the client's journal is kept
 * per digest.
 */
public record Manifest(List<Announcement.File> files) {
    public Manifest {
        files = List.copyOf(files);
        for (int i = 0; i < files.size(); i++) {
            if (files.get(i).index() != i) {
                throw new IllegalArgumentException("file index: " + files.get(i).index() + " (expected: " + i
                        + ", files in index order)");
            }
        }
    }

    /** SHA-256 (64 lowercase hex digits) over the FILE lines as announced (without {@code 151 }), each followed by LF. */
    public String digest() {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (Announcement.File f : files) {
                md.update(ExtensionCodec.format(f).getBytes(StandardCharsets.UTF_8));
                md.update((byte) '\n');
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The bytes of all files. */
    public long totalBytes() {
        return files.stream().mapToLong(Announcement.File::size).sum();
    }

    /** The latest modification time of any file, 0 without files. */
    public long newestModifiedMillis() {
        return files.stream().mapToLong(Announcement.File::modifiedMillis).max().orElse(0);
    }

    /** {@code digest} if it is a manifest digest, as {@link #digest()} writes it; else an IllegalArgumentException. */
    public static String requireDigest(String digest) {
        if (digest == null || !digest.matches("[0-9a-f]{64}")) {
            throw new IllegalArgumentException("manifest: " + ExtensionCodec.shorten(digest)
                    + " (expected: 64 lowercase hex digits)");
        }
        return digest;
    }
}

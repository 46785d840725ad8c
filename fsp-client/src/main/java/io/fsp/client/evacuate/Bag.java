package io.fsp.client.evacuate;

import io.fsp.client.write.AtomicFileWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.LocalDate;
import java.util.HexFormat;
import java.util.List;

/**
 * A BagIt bag (RFC 8493) around collected files, which archives can check with their own tools: {@code bagit.txt},
 * {@code bag-info.txt} ({@code Bagging-Date}, {@code External-Identifier}: the transfer id, {@code Payload-Oxum}),
 * the payload under {@code data/}, {@code manifest-sha256.txt} with each payload file hashed from the disk once
 * it is there, and {@code tagmanifest-sha256.txt} over the three tag files. Each tag file is replaced atomically
 * ({@link AtomicFileWriter}); the tag manifest comes last, so a bag that has one is whole.
 */
public final class Bag {
    public static final String PAYLOAD = "data";
    /** Written last: a bag that has it is whole. */
    public static final String TAG_MANIFEST = "tagmanifest-sha256.txt";
    private static final int READ_BUFFER = 1 << 20;

    private Bag() {
    }

    /**
     * Writes the tag files of the bag at {@code dir} for {@code payload} (names under {@code data/},
     * {@code /}-separated, in the order to list them).
     *
     * @return the Payload-Oxum, {@code OCTETS.FILES}
     */
    public static String write(Path dir, List<String> payload, String externalIdentifier, LocalDate baggingDate)
            throws IOException {
        StringBuilder manifest = new StringBuilder();
        long octets = 0;
        for (String name : payload) {
            Path file = dir.resolve(PAYLOAD).resolve(name);
            manifest.append(sha256(file)).append("  ").append(encode(PAYLOAD + "/" + name)).append('\n');
            octets += Files.size(file);
        }
        String oxum = octets + "." + payload.size();
        String bagInfo = "Bagging-Date: " + baggingDate + "\nExternal-Identifier: " + externalIdentifier
                + "\nPayload-Oxum: " + oxum + "\n";
        String bagit = "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n";
        writeTagFile(dir, "manifest-sha256.txt", manifest.toString());
        writeTagFile(dir, "bag-info.txt", bagInfo);
        writeTagFile(dir, "bagit.txt", bagit);
        StringBuilder tags = new StringBuilder();
        for (String tag : List.of("bagit.txt", "bag-info.txt", "manifest-sha256.txt")) {
            tags.append(sha256(dir.resolve(tag))).append("  ").append(tag).append('\n');
        }
        writeTagFile(dir, TAG_MANIFEST, tags.toString());
        return oxum;
    }

    /** A path as a manifest line holds it (RFC 8493 §2.1.3): CR, LF and % percent-encoded. */
    static String encode(String path) {
        return path.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A");
    }

    /** The SHA-256 of a file as it is on the disk, lowercase hex. */
    static String sha256(Path file) throws IOException {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
        ByteBuffer buffer = ByteBuffer.allocate(READ_BUFFER);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            while (ch.read(buffer.clear()) >= 0) {
                md.update(buffer.flip());
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    private static void writeTagFile(Path dir, String name, String content) throws IOException {
        AtomicFileWriter.write(dir.resolve(name), content.getBytes(StandardCharsets.UTF_8));
    }
}

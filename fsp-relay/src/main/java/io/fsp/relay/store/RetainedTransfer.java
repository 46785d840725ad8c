package io.fsp.relay.store;

import io.fsp.crypto.KeyFiles;
import io.fsp.tls.Fingerprint;
import io.fsp.token.TokenKey;
import io.fsp.token.TransferId;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;

/**
 * What a relay keeps of a retained transfer besides its blocks, so that a restarted relay can restore it:
 * the file {@code <store>/<transfer id hex>/transfer} (docs/protocol.md §3.6). ASCII, one field per line, in this
 * order and nothing else:
 *
 * <pre>
 * fsp-relay-transfer 1
 * transfer 0011223344556677
 * token-key 64 hex digits
 * expires-at 2026-12-01T08:00:00Z
 * space 1048576
 * reservation 1048576
 * owner AB:CD:… (the opening server's certificate fingerprint)
 * </pre>
 *
 * Readable by the relay's user only: with the token key anyone could make tokens for the transfer.
 *
 * @param space the block bytes the server declared it would push here
 * @param reservation what the relay reserved for the transfer when it opened it: 1..{@code space}; restored, the
 *                    transfer is finished and reserves only the blocks it holds (at most this)
 */
public record RetainedTransfer(TransferId id, TokenKey key, Instant expiresAt, long space, long reservation,
                               Fingerprint owner) {
    /** The file's name in the transfer's directory. */
    public static final String FILE_NAME = "transfer";
    static final int VERSION = 1;
    private static final String MAGIC = "fsp-relay-transfer";
    /** Far more than a sound file takes (about 300 bytes). */
    private static final int MAX_BYTES = 1024;
    private static final List<String> FIELDS = List.of(MAGIC, "transfer", "token-key", "expires-at", "space",
            "reservation", "owner");

    public RetainedTransfer {
        if (space < 1) {
            throw new IllegalArgumentException("space: " + space + " (expected: >= 1)");
        }
        if (reservation < 1 || reservation > space) {
            throw new IllegalArgumentException("reservation: " + reservation + " (expected: 1.." + space
                    + ", the space)");
        }
    }

    /** The file's text. */
    String encode() {
        List<String> values = List.of(Integer.toString(VERSION), id.toString(), HexFormat.of().formatHex(key.bytes()),
                expiresAt.toString(), Long.toString(space), Long.toString(reservation), owner.toString());
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < FIELDS.size(); i++) {
            b.append(FIELDS.get(i)).append(' ').append(values.get(i)).append('\n');
        }
        return b.toString();
    }

    /** Parses what {@link #encode} wrote; anything else is refused with what is wrong. */
    static RetainedTransfer decode(String text) {
        if (!text.endsWith("\n")) {
            throw new IllegalArgumentException("no line end at the end of the file");
        }
        String[] lines = text.substring(0, text.length() - 1).split("\n", -1);
        if (lines.length != FIELDS.size()) {
            throw new IllegalArgumentException(lines.length + " lines (expected: " + FIELDS.size() + ")");
        }
        String[] values = new String[lines.length];
        for (int i = 0; i < lines.length; i++) {
            String prefix = FIELDS.get(i) + " ";
            if (!lines[i].startsWith(prefix)) {
                throw new IllegalArgumentException("line " + (i + 1) + ": (expected: '" + prefix + "…')");
            }
            values[i] = lines[i].substring(prefix.length());
        }
        if (!values[0].equals(Integer.toString(VERSION))) {
            throw new IllegalArgumentException("version: " + values[0] + " (expected: " + VERSION + ")");
        }
        try {
            return new RetainedTransfer(TransferId.parse(values[1]), new TokenKey(HexFormat.of().parseHex(values[2])),
                    Instant.parse(values[3]), Long.parseLong(values[4]), Long.parseLong(values[5]),
                    Fingerprint.parse(values[6]));
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("expires-at: " + e.getMessage(), e);
        }
    }

    /**
     * Writes the file into {@code dir} (created if need be) aside and moves it into place, then forces it and the
     * directory to disk, and the store directory too when {@code dir} was created here: once this returns, the
     * transfer survives a crash.
     */
    void write(Path dir) throws IOException {
        boolean created = !Files.isDirectory(dir);
        Files.createDirectories(dir);
        if (created) {
            forceDirectory(dir.toAbsolutePath().getParent());
        }
        Path file = dir.resolve(FILE_NAME);
        KeyFiles.write(file, true, true, w -> w.write(encode()));
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ch.force(true); // what was written through the temporary name
        }
        forceDirectory(dir);
    }

    /** Reads and checks the file; an {@link IOException} says what is wrong with it. */
    static RetainedTransfer read(Path file) throws IOException {
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_BYTES + 1);
        }
        if (bytes.length > MAX_BYTES) {
            throw new IOException(file + ": more than " + MAX_BYTES + " bytes");
        }
        try {
            return decode(new String(bytes, StandardCharsets.US_ASCII));
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    /** Forces a directory's entries to disk: a file created, renamed or deleted in it stays so after a crash. */
    static void forceDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}

package io.fsp.client.journal;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * Durable, append-only record of verified blocks of one transfer.
 *
 * <p>File layout (all integers big-endian):
 * <pre>
 * header:  "FSPJ" | version u8 (1) | identity length u32 | identity (UTF-8) | crc32c u32 of all before
 * record:  payload length u32 | payload | crc32c u32 of length and payload
 * payload: type u8 (1 = block verified) | offset i64 | length i32 | path length u16 | path (UTF-8)
 *          | digest length u8 | digest
 * </pre>
 * Every append is written and {@code fdatasync}ed before it returns. A crash can only tear the last
 * record; on open the journal keeps every complete record, cuts the torn tail and appends after it.
 * A journal whose header does not match the {@link TransferIdentity} (another server or path, or a
 * changed file) is discarded, never trusted.
 */
public final class ResumeJournal implements Closeable {
    static final int MAX_DIGEST_BYTES = 64;
    static final int MAX_IDENTITY_BYTES = 64 * 1024;
    static final int MAX_PAYLOAD_BYTES = 1 + 8 + 4 + 2 + 4096 + 1 + MAX_DIGEST_BYTES;
    private static final byte[] MAGIC = {'F', 'S', 'P', 'J'};
    private static final byte VERSION = 1;
    private static final byte TYPE_VERIFIED = 1;

    /** What {@link #open} found. */
    public enum State {
        /** No journal existed: the transfer starts from the beginning. */
        NEW,
        /** A journal of this transfer was found; its verified blocks need not be fetched again. */
        RESUMED,
        /** A journal of another transfer, or of an older version of the file, was found and discarded. */
        STALE_DISCARDED,
        /** A journal with an unreadable header was found and discarded. */
        CORRUPT_DISCARDED
    }

    private final Path file;
    private final FileChannel channel;
    private final State state;
    private final long cutTailBytes;
    private final Set<JournalRecord> verified = new HashSet<>();
    /** The same blocks by place only (path, offset, length), for blocks the server did not send again. */
    private final Map<Place, byte[]> places = new HashMap<>(); // each verified place, with its digest

    private record Place(String path, long offset, int length) {
        static Place of(JournalRecord r) {
            return new Place(r.path(), r.offset(), r.length());
        }
    }

    private ResumeJournal(Path file, FileChannel channel, State state, long cutTailBytes, Collection<JournalRecord> records) {
        this.file = file;
        this.channel = channel;
        this.state = state;
        this.cutTailBytes = cutTailBytes;
        this.verified.addAll(records);
        records.forEach(r -> places.put(Place.of(r), r.digest()));
    }

    /** Opens (or creates) the journal at {@code file} for the transfer {@code identity}. */
    public static ResumeJournal open(Path file, TransferIdentity identity) throws IOException {
        byte[] header = header(identity);
        if (!Files.exists(file)) {
            return fresh(file, header, State.NEW);
        }
        byte[] content = Files.readAllBytes(file);
        if (content.length < header.length || !Arrays.equals(content, 0, header.length, header, 0, header.length)) {
            boolean ours = content.length >= MAGIC.length && Arrays.equals(content, 0, MAGIC.length, MAGIC, 0, MAGIC.length)
                    && validHeader(content);
            return fresh(file, header, ours ? State.STALE_DISCARDED : State.CORRUPT_DISCARDED);
        }
        ByteBuffer in = ByteBuffer.wrap(content);
        in.position(header.length);
        List<JournalRecord> records = new java.util.ArrayList<>();
        long good = header.length;
        while (true) {
            JournalRecord r = readRecord(in);
            if (r == null) {
                break;
            }
            records.add(r);
            good = in.position();
        }
        FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.READ);
        try {
            long cut = content.length - good;
            if (cut > 0) {
                ch.truncate(good);
                ch.force(false);
            }
            ch.position(good);
            return new ResumeJournal(file, ch, State.RESUMED, cut, records);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    private static ResumeJournal fresh(Path file, byte[] header, State state) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.READ, StandardOpenOption.TRUNCATE_EXISTING);
        try {
            ByteBuffer b = ByteBuffer.wrap(header);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
            // The new name itself must survive a crash, so the directory entry is synced too.
            try (FileChannel dir = FileChannel.open(parent, StandardOpenOption.READ)) {
                dir.force(true);
            }
            return new ResumeJournal(file, ch, state, 0, List.of());
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    private static byte[] header(TransferIdentity identity) {
        byte[] id = identity.canonical();
        if (id.length > MAX_IDENTITY_BYTES) {
            throw new IllegalArgumentException("identity: " + id.length + " bytes (expected: <= " + MAX_IDENTITY_BYTES + ")");
        }
        ByteBuffer b = ByteBuffer.allocate(MAGIC.length + 1 + 4 + id.length + 4);
        b.put(MAGIC).put(VERSION).putInt(id.length).put(id);
        b.putInt(crc(b.array(), 0, b.position()));
        return b.array();
    }

    private static boolean validHeader(byte[] content) {
        ByteBuffer in = ByteBuffer.wrap(content);
        if (in.remaining() < MAGIC.length + 1 + 4) {
            return false;
        }
        in.position(MAGIC.length + 1);
        int idLength = in.getInt();
        if (idLength < 0 || idLength > MAX_IDENTITY_BYTES || in.remaining() < idLength + 4) {
            return false;
        }
        int end = MAGIC.length + 1 + 4 + idLength;
        return ByteBuffer.wrap(content, end, 4).getInt() == crc(content, 0, end);
    }

    /** One record, or null at the end or at a torn or damaged record (everything from there is cut). */
    private static JournalRecord readRecord(ByteBuffer in) {
        int start = in.position();
        if (in.remaining() < 4) {
            return null;
        }
        int length = in.getInt();
        if (length < 1 || length > MAX_PAYLOAD_BYTES || in.remaining() < length + 4) {
            return null;
        }
        int crcAt = start + 4 + length;
        if (in.getInt(crcAt) != crc(in.array(), start, 4 + length)) {
            return null;
        }
        ByteBuffer p = ByteBuffer.wrap(in.array(), start + 4, length);
        in.position(crcAt + 4);
        try {
            if (p.get() != TYPE_VERIFIED) {
                return null;
            }
            long offset = p.getLong();
            int blockLength = p.getInt();
            byte[] path = new byte[Short.toUnsignedInt(p.getShort())];
            p.get(path);
            byte[] digest = new byte[Byte.toUnsignedInt(p.get())];
            p.get(digest);
            if (p.hasRemaining()) {
                return null;
            }
            String name = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(path)).toString();
            return new JournalRecord(name, offset, blockLength, digest);
        } catch (RuntimeException | CharacterCodingException e) {
            // A record whose checksum matches but whose fields do not parse (or whose path is not strict
            // UTF-8) was not written by us.
            return null;
        }
    }

    private static int crc(byte[] data, int from, int length) {
        CRC32C c = new CRC32C();
        c.update(data, from, length);
        return (int) c.getValue();
    }

    private static byte[] encode(JournalRecord r) {
        byte[] path = r.path().getBytes(StandardCharsets.UTF_8);
        byte[] digest = r.digest();
        int payload = 1 + 8 + 4 + 2 + path.length + 1 + digest.length;
        if (path.length > 0xffff || payload > MAX_PAYLOAD_BYTES) {
            throw new IllegalArgumentException("record: " + payload + " bytes (expected: <= " + MAX_PAYLOAD_BYTES + ")");
        }
        ByteBuffer b = ByteBuffer.allocate(4 + payload + 4);
        b.putInt(payload).put(TYPE_VERIFIED).putLong(r.offset()).putInt(r.length())
                .putShort((short) path.length).put(path).put((byte) digest.length).put(digest);
        b.putInt(crc(b.array(), 0, b.position()));
        return b.array();
    }

    public State state() {
        return state;
    }

    /** Bytes of a torn last record cut off when the journal was opened. */
    public long cutTailBytes() {
        return cutTailBytes;
    }

    public Path file() {
        return file;
    }

    /** Whether this block was verified with this digest by an earlier run (or this one). */
    public synchronized boolean isVerified(String path, long offset, int length, byte[] digest) {
        return verified.contains(new JournalRecord(path, offset, length, digest));
    }

    /**
     * Whether the block at this place was verified by an earlier run, whatever its digest: for blocks the
     * server announced as held ({@code have}) after checking that the files did not change since.
     */
    public synchronized boolean holds(String path, long offset, int length) {
        return places.containsKey(new Place(path, offset, length));
    }

    /** The digest an earlier run verified the block at this place with, if it did. */
    public synchronized Optional<byte[]> digest(String path, long offset, int length) {
        return Optional.ofNullable(places.get(new Place(path, offset, length))).map(byte[]::clone);
    }

    /**
     * The verified blocks of the journal at {@code file} if it belongs to {@code identity}, else none. Only
     * reads; a torn tail is left for {@link #open} to cut.
     */
    public static Set<JournalRecord> peek(Path file, TransferIdentity identity) throws IOException {
        if (!Files.exists(file)) {
            return Set.of();
        }
        byte[] header = header(identity);
        byte[] content = Files.readAllBytes(file);
        if (content.length < header.length || !Arrays.equals(content, 0, header.length, header, 0, header.length)) {
            return Set.of();
        }
        ByteBuffer in = ByteBuffer.wrap(content);
        in.position(header.length);
        Set<JournalRecord> records = new HashSet<>();
        for (JournalRecord r; (r = readRecord(in)) != null; ) {
            records.add(r);
        }
        return records;
    }

    /** A snapshot of every verified block recorded. */
    public synchronized Set<JournalRecord> verified() {
        return Set.copyOf(verified);
    }

    public void append(JournalRecord record) throws IOException {
        append(List.of(record));
    }

    /** Appends the records with one write and one {@code fdatasync}; they are durable when this returns. */
    public synchronized void append(Collection<JournalRecord> records) throws IOException {
        if (records.isEmpty()) {
            return;
        }
        List<byte[]> encoded = records.stream().map(ResumeJournal::encode).toList();
        ByteBuffer b = ByteBuffer.allocate(encoded.stream().mapToInt(e -> e.length).sum());
        encoded.forEach(b::put);
        b.flip();
        while (b.hasRemaining()) {
            channel.write(b);
        }
        channel.force(false);
        verified.addAll(records);
        records.forEach(r -> places.put(Place.of(r), r.digest()));
    }

    /** Closes and removes the journal: the transfer is complete and verified. */
    public synchronized void delete() throws IOException {
        channel.close();
        Files.deleteIfExists(file);
    }

    @Override
    public synchronized void close() throws IOException {
        channel.close();
    }
}

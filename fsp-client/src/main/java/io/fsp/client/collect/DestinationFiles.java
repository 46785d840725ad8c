package io.fsp.client.collect;

import io.fsp.client.journal.JournalRecord;
import io.fsp.client.verify.BlockRef;
import io.fsp.client.write.DestinationTree;
import io.fsp.client.write.PositionalWriter;
import io.fsp.extension.FileSegment;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The files of a transfer on this side: where each goes (a single file to the destination's name, a directory's
 * entries under the destination), the writer that places blocks into them, and their names — each is written
 * under a temporary name ({@code .NAME.fsp-part}) and gets its own once every block of it is in.
 */
final class DestinationFiles implements AutoCloseable {
    /** A file of the transfer: its index, remote name, local name under the writer's root, size. */
    record RemoteFile(int index, String name, String local, long size, long modifiedMillis) {
    }

    private final Path destination;
    private final boolean directWrites;
    private boolean directory;
    /** The files collected, in index order (FILE lines come in that order; the collected ones may skip some). */
    private final List<RemoteFile> files = new ArrayList<>();
    /** The same by index, null where a file is not collected (an array: a map took 56 bytes a file). */
    private RemoteFile[] byIndex = new RemoteFile[16];
    private final Map<Integer, Long> bytesIn = new ConcurrentHashMap<>();
    private final List<String> notRenamed = Collections.synchronizedList(new ArrayList<>());
    /** Where the files go when not by path beside this process (a server's user root); null: by path. */
    private final DestinationTree tree;
    private PositionalWriter writer;

    DestinationFiles(Path destination, boolean directWrites) {
        this(destination, directWrites, null);
    }

    /**
     * @param tree where the files go (a directory's entries in it, a single file by the destination's name);
     *             null: the destination's path
     */
    DestinationFiles(Path destination, boolean directWrites, DestinationTree tree) {
        this.destination = destination;
        this.directWrites = directWrites;
        this.tree = tree;
    }

    /** The transfer is a directory (its entries go under the destination), not a single file. */
    void directory(boolean on) {
        directory = on;
    }

    boolean isDirectory() {
        return directory;
    }

    /** A {@code FILE} line. */
    void add(int index, String remoteName, long size, long modifiedMillis) {
        if (!files.isEmpty() && index <= files.get(files.size() - 1).index()) {
            throw new IllegalArgumentException("FILE index: " + index + " (expected: files in index order)");
        }
        RemoteFile f = new RemoteFile(index, remoteName, local(remoteName), size, modifiedMillis);
        if (index >= byIndex.length) {
            byIndex = Arrays.copyOf(byIndex, Math.max(index + 1, byIndex.length * 2));
        }
        byIndex[index] = f;
        files.add(f);
    }

    /** A {@code DIR} line. */
    void createDirectory(String remoteName) throws IOException {
        writer().createDirectory(local(remoteName));
    }

    /** File {@code index}, null if it is not collected. */
    RemoteFile get(int index) {
        return index >= 0 && index < byIndex.length ? byIndex[index] : null;
    }

    Collection<RemoteFile> all() {
        return Collections.unmodifiableList(files);
    }

    int count() {
        return files.size();
    }

    long newestModifiedMillis() {
        return files.stream().mapToLong(RemoteFile::modifiedMillis).max().orElse(0);
    }

    /** The writer, made on first use (the destination's root is known once the transfer's kind is). */
    PositionalWriter writer() throws IOException {
        if (writer == null) {
            writer = tree != null ? new PositionalWriter(tree, directWrites)
                    : new PositionalWriter(directory ? destination : parentOf(destination), directWrites);
        }
        return writer;
    }

    /**
     * Refuses to start when the destination's file system cannot take what is still to be written (the files are
     * made sparse, so nothing is reserved yet): a full disk is reported as such before the first byte, not as
     * blocks that "could not be verified" after rounds of fetching them again.
     *
     * @param held bytes an earlier run wrote and verified
     */
    void checkSpace(long held) throws IOException {
        long needed = files.stream().mapToLong(RemoteFile::size).sum() - held;
        FileStore store = Files.getFileStore(writer().root());
        long usable = store.getUsableSpace();
        if (needed > usable) {
            throw new NotEnoughSpaceException(String.format(Locale.ROOT,
                    "not enough space for %s: %,d bytes still to write, %,d available on %s", destination, needed,
                    usable, store));
        }
    }

    /**
     * Creates each file under its temporary name; an earlier run's temporary file is continued, and a file an
     * earlier run wrote blocks of in place ({@code writtenInPlace}, by local name) stays there.
     */
    void prepareTemporaryFiles(Set<String> writtenInPlace) throws IOException {
        List<PositionalWriter.FileToWrite> all = new ArrayList<>(files.size());
        for (RemoteFile f : files) {
            all.add(new PositionalWriter.FileToWrite(f.local(), f.size(), writtenInPlace.contains(f.local())));
        }
        writer().prepareTemporaryFiles(all);
    }

    /**
     * The bytes of each file that block {@code a} holds (several files for a block that carries small ones).
     *
     * @throws IllegalArgumentException if the block does not lie inside the announced files
     */
    List<FileSegment> segments(AnnouncedBlock a) {
        return FileSegment.of(a.file(), a.offset(), a.length(), fileCount(), this::sizeOf);
    }

    /** One more than the largest file index (FILE lines come in index order from 0). */
    private int fileCount() {
        return files.isEmpty() ? 0 : files.get(files.size() - 1).index() + 1;
    }

    private long sizeOf(int index) {
        RemoteFile f = get(index);
        if (f == null) {
            throw new IllegalArgumentException("file " + index + " (expected: announced by a FILE line)");
        }
        return f.size();
    }

    /** Where block {@code a} goes on this side: its first file and offset, and each file's part. */
    BlockRef ref(AnnouncedBlock a) {
        List<FileSegment> segments = segments(a);
        List<BlockRef.Part> parts = new ArrayList<>(segments.size());
        for (FileSegment s : segments) {
            parts.add(new BlockRef.Part(get(s.file()).local(), s.offset(), s.length()));
        }
        return new BlockRef(get(a.file()).local(), a.offset(), a.length(), parts);
    }

    /**
     * The local names of the files that an earlier run's verified blocks ({@code journaled}) wrote into: a block that
     * carried small files wrote into each of them.
     */
    Set<String> writtenBy(Collection<JournalRecord> journaled) {
        Map<String, RemoteFile> byLocal = new HashMap<>();
        files.forEach(f -> byLocal.put(f.local(), f));
        Set<String> out = new HashSet<>();
        for (JournalRecord r : journaled) {
            RemoteFile first = byLocal.get(r.path());
            if (first == null || r.offset() + r.length() <= first.size()) {
                out.add(r.path());
                continue;
            }
            for (FileSegment s : FileSegment.of(first.index(), r.offset(), r.length(), fileCount(), this::sizeOf)) {
                out.add(get(s.file()).local());
            }
        }
        return out;
    }

    /** Block {@code a} is in: the last block of each of its files gives the file its name. */
    void blockIn(AnnouncedBlock a) {
        for (FileSegment s : segments(a)) {
            bytesIn(s.file(), s.length());
        }
    }

    private void bytesIn(int index, int length) {
        RemoteFile f = get(index);
        if (f != null && bytesIn.merge(index, (long) length, Long::sum) == f.size()) {
            try {
                writer.complete(f.local());
            } catch (IOException e) {
                notRenamed.add(f.name() + ": " + e.getMessage());
            }
        }
    }

    /** The names of the files not every block of which is in. */
    List<String> unfinished() {
        List<String> out = new ArrayList<>();
        for (RemoteFile f : files) {
            if (bytesIn.getOrDefault(f.index(), 0L) != f.size()) {
                out.add(f.name());
            }
        }
        return out;
    }

    /** Files whose blocks are all in but that kept their temporary names, with why. */
    List<String> notRenamed() {
        synchronized (notRenamed) {
            return List.copyOf(notRenamed);
        }
    }

    /** A single file goes to the destination's name; a directory's entries under the destination. */
    private String local(String remoteName) {
        return directory ? remoteName : destination.toAbsolutePath().getFileName().toString();
    }

    private static Path parentOf(Path p) {
        Path abs = p.toAbsolutePath();
        return abs.getParent() == null ? abs : abs.getParent();
    }

    /** Makes the names of the files and directories written durable (before the transfer is reported complete), then closes them. */
    @Override
    public void close() throws IOException {
        if (writer != null) {
            try (PositionalWriter w = writer) {
                w.syncNames();
            }
        }
    }
}

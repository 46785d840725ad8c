package io.fsp.client.write;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.FileSystemException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * Writes blocks at their offsets into files under one destination root.
 *
 * <p>Names come from the network (block headers, manifests), so every name is checked again here even
 * if a parser upstream already did: a relative path of plain segments, resolved one segment at a time,
 * never through a symbolic link, and always ending under the root. Positional writes on one
 * {@link FileChannel} are safe from many threads, so blocks of one file may be written concurrently and in
 * any order.
 *
 * <p>Costs follow bytes, not files: a file is created by its first write (an empty one when prepared), each
 * directory is made once, at most {@code maxOpen} files are open at a time ({@link OpenFiles}), and directory
 * entries are made durable a directory at a time for a whole group of files ({@link #syncEntries},
 * {@link #syncNames}), not once per file.
 */
public final class PositionalWriter implements Closeable {
    /** Longest relative name accepted, in UTF-8 bytes (Linux PATH_MAX). */
    public static final int MAX_PATH_BYTES = 4096;
    /** Longest single segment accepted, in UTF-8 bytes (Linux NAME_MAX). */
    public static final int MAX_SEGMENT_BYTES = 255;
    /**
     * Files kept open at most while nobody writes them: far below any descriptor limit (Linux's default soft
     * limit is 1024), so a tree of any number of files is written with the limits a user has.
     */
    public static final int DEFAULT_MAX_OPEN = 128;

    private final DestinationTree tree;
    private final boolean directWrites;
    private final OpenFiles open;
    private volatile int alignment;
    private volatile boolean directUnsupported;
    /** Files written under their temporary name until {@link #complete}. */
    private final Set<String> temporary = ConcurrentHashMap.newKeySet();
    /** Directories this writer made or found: each is made once, not once per file in it. */
    private final Set<String> directories = ConcurrentHashMap.newKeySet();
    /** Names made or changed and not durable yet. */
    private final DurableNames names;
    /**
     * Whether the files {@link #prepareTemporaryFiles} readied existed then (under the name written to), until each
     * is first opened: a file's creation is known without asking the file system again.
     */
    private final Map<String, Boolean> existedWhenPrepared = new ConcurrentHashMap<>();
    /** Files written to since their last flush. */
    private final Set<String> unflushed = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /** Uses {@code root} as the destination, creating it if it is missing. */
    public PositionalWriter(Path root) throws IOException {
        this(root, false);
    }

    /**
     * @param directWrites write aligned blocks with {@code O_DIRECT}: the device reads them straight
     *     from the buffer, so the CPU does not copy them into the page cache (blocks whose buffer
     *     address, offset or length is not aligned to the file system block size, and file systems
     *     without {@code O_DIRECT}, are written through the page cache as usual)
     */
    public PositionalWriter(Path root, boolean directWrites) throws IOException {
        this(new PathTree(root), directWrites);
    }

    /** Writes into {@code tree}, which opens every file and directory (by path, or relative to directory handles). */
    public PositionalWriter(DestinationTree tree, boolean directWrites) {
        this(tree, directWrites, DEFAULT_MAX_OPEN);
    }

    /** @param maxOpen files kept open at most while nobody writes them */
    public PositionalWriter(DestinationTree tree, boolean directWrites, int maxOpen) {
        this.tree = tree;
        this.directWrites = directWrites;
        this.open = new OpenFiles(maxOpen);
        this.names = new DurableNames(tree, this::stored);
        directories.add("");
    }

    public Path root() {
        return tree.root();
    }

    /**
     * Resolves a relative name ({@code a/b/c.bin}, '/'-separated) to a path under the root, for reading back
     * what was written (RIVA, resumed blocks); writing goes through the {@link DestinationTree}.
     *
     * @throws UnsafePathException for absolute names, {@code .} or {@code ..} segments, empty segments,
     *     NUL, backslashes, over-long names, or a symbolic link on the way
     */
    public Path resolve(String relativePath) throws UnsafePathException {
        return SafeNames.resolve(tree.root(), relativePath);
    }

    /**
     * Checks a relative name as every announced name is checked before a path is made of it: not absolute, no
     * empty, {@code .} or {@code ..} segment, no NUL or backslash, not over-long.
     */
    public static void checkRelative(String relativePath) throws UnsafePathException {
        SafeNames.segments(relativePath);
    }

    /** {@code relativePath} checked: the name the tree is given. */
    private static String checked(String relativePath) throws UnsafePathException {
        return SafeNames.checked(relativePath);
    }

    /**
     * Where the bytes of {@code relativePath} are now: its temporary name while it is being written under one
     * ({@link #prepareTemporaryFile}), else its own.
     */
    public Path location(String relativePath) throws UnsafePathException {
        return resolve(stored(relativePath));
    }

    /** The relative name the bytes of {@code relativePath} are stored under now (temporary or own). */
    private String stored(String relativePath) throws UnsafePathException {
        String name = checked(relativePath);
        return temporary.contains(relativePath) ? tree.temporaryName(name) : name;
    }

    /**
     * {@code .NAME.fsp-part} beside the file; a name too long for that (file names have at most 255 bytes) is
     * replaced by a digest of it.
     */
    public static String temporaryName(String file) {
        return SafeNames.temporaryName(file);
    }

    /**
     * Readies a file whose bytes go to its temporary name ({@link DestinationTree#temporaryName}) until {@link #complete}, so that
     * an interrupted transfer never leaves something that looks finished under the final name. A temporary file an
     * earlier run left is continued. With {@code earlierRunWroteInPlace} and no temporary file, the file is written
     * where it is (an earlier run wrote blocks of it there). Nothing is opened: the file is created by its first
     * write; an empty file, which no write will ever reach, is created now; content an earlier run left beyond
     * {@code size} is cut off.
     */
    public void prepareTemporaryFile(String relativePath, long size, boolean earlierRunWroteInPlace) throws IOException {
        prepareTemporaryFile(new FileToWrite(relativePath, size, earlierRunWroteInPlace), new Listings());
    }

    /** A file {@link #prepareTemporaryFiles} readies: its name, size, and whether an earlier run wrote blocks of it in place. */
    public record FileToWrite(String relativePath, long size, boolean earlierRunWroteInPlace) {
    }

    /**
     * {@link #prepareTemporaryFile} for many files: whether a file or its temporary name exists is looked up in one
     * listing of its directory, not asked of the file system file by file.
     */
    public void prepareTemporaryFiles(Collection<FileToWrite> files) throws IOException {
        Listings listings = new Listings();
        for (FileToWrite f : files) {
            prepareTemporaryFile(f, listings);
        }
    }

    /** The names in each directory, listed once, where the tree can list them. */
    private final class Listings {
        private final Map<String, Set<String>> names = new HashMap<>();

        boolean exists(String name) throws IOException {
            String dir = DestinationTree.parent(name);
            Set<String> in = names.get(dir);
            if (in == null && !names.containsKey(dir)) {
                in = tree.names(dir);
                names.put(dir, in);
            }
            return in == null ? tree.exists(name) : in.contains(DestinationTree.last(name));
        }
    }

    private void prepareTemporaryFile(FileToWrite f, Listings listings) throws IOException {
        String relativePath = f.relativePath();
        long size = f.size();
        if (size < 0) {
            throw new IllegalArgumentException("size: " + size + " (expected: >= 0)");
        }
        String file = checked(relativePath);
        if (size > 0 && (listings.exists(tree.temporaryName(file)) || !f.earlierRunWroteInPlace())) {
            temporary.add(relativePath);
        }
        String stored = stored(relativePath);
        if (size == 0) {
            createDirectories(DestinationTree.parent(stored));
            OpenFiles.Handle h = lease(relativePath);
            try {
                h.channel.truncate(0);
            } finally {
                open.release(h);
            }
            names.emptyFileMade(relativePath, stored);
        } else if (!listings.exists(stored)) {
            existedWhenPrepared.put(relativePath, false);
        } else {
            OpenFiles.Handle h = lease(relativePath);
            try {
                if (h.channel.size() > size) {
                    h.channel.truncate(size);
                }
            } finally {
                open.release(h);
            }
        }
    }

    /**
     * Every block of a file is in and durable: a file written under its temporary name gets its own, replacing
     * whatever had it. Nothing to do for a file written in place. The new name is made durable with the other
     * names of its directory by {@link #syncNames}.
     */
    public void complete(String relativePath) throws IOException {
        if (!temporary.contains(relativePath)) {
            return;
        }
        String file = checked(relativePath);
        if (unflushed.contains(relativePath)) {
            forceData(relativePath);
        }
        closeFile(relativePath);
        tree.replace(tree.temporaryName(file), file);
        temporary.remove(relativePath);
        names.renamed(relativePath, file);
    }

    /** Creates a (possibly empty) directory and its parents under the root; durable by {@link #syncNames}. */
    public void createDirectory(String relativePath) throws IOException {
        createDirectories(checked(relativePath));
    }

    /** Makes {@code dir} and its parents, once per writer; the ones made are remembered as not durable yet. */
    private void createDirectories(String dir) throws IOException {
        if (directories.contains(dir)) {
            return;
        }
        List<String> missing = new ArrayList<>();
        for (String d = dir; !directories.contains(d); d = DestinationTree.parent(d)) {
            if (!tree.exists(d)) {
                missing.add(d);
            }
        }
        tree.createDirectories(dir);
        names.directoriesMade(missing);
        for (String d = dir; directories.add(d); d = DestinationTree.parent(d)) {
            // every directory on the way exists now
        }
    }

    /**
     * Creates the file (and its directories) and sets its length to {@code size}, so that blocks can be
     * written in any order and an empty file exists even though no block will ever arrive for it.
     * Existing content inside {@code size} is kept: a resumed transfer keeps its verified blocks.
     */
    public void prepareFile(String relativePath, long size) throws IOException {
        if (size < 0) {
            throw new IllegalArgumentException("size: " + size + " (expected: >= 0)");
        }
        OpenFiles.Handle h = lease(relativePath);
        try {
            long current = h.channel.size();
            if (current > size) {
                h.channel.truncate(size);
            } else if (current < size) {
                // Extends sparsely: the byte written lies past every byte that was ever written.
                writeFully(h.channel, ByteBuffer.allocate(1), size - 1);
            }
        } finally {
            open.release(h);
        }
        if (size == 0) {
            // No block will ever be flushed for an empty file: make its existence durable now.
            force(relativePath);
        }
    }

    /** Writes all of {@code data} (from its position to its limit) at {@code offset}; the buffer's position is not moved. */
    public void write(String relativePath, long offset, ByteBuffer data) throws IOException {
        if (offset < 0) {
            throw new IllegalArgumentException("offset: " + offset + " (expected: >= 0)");
        }
        OpenFiles.Handle h = lease(relativePath);
        try {
            unflushed.add(relativePath);
            if (directWrites && !directUnsupported && aligned(data, offset)) {
                FileChannel d = directChannel(relativePath, h);
                if (d != null) {
                    writeFully(d, data.duplicate(), offset);
                    return;
                }
            }
            writeFully(h.channel, data.duplicate(), offset);
        } finally {
            open.release(h);
        }
    }

    private boolean aligned(ByteBuffer data, long offset) throws IOException {
        if (!data.isDirect() || !data.hasRemaining()) {
            return false;
        }
        int a = alignment;
        if (a == 0) {
            a = alignment = (int) Math.max(512, Files.getFileStore(tree.root()).getBlockSize());
        }
        return offset % a == 0 && data.remaining() % a == 0 && data.alignmentOffset(data.position(), a) == 0;
    }

    /** The O_DIRECT channel of a leased file, or null when the file system refuses O_DIRECT. */
    private FileChannel directChannel(String relativePath, OpenFiles.Handle h) throws IOException {
        synchronized (h) {
            if (h.direct == null) {
                try {
                    h.direct = tree.openDirect(stored(relativePath));
                } catch (IOException | UnsupportedOperationException e) {
                    directUnsupported = true; // e.g. tmpfs: every write goes through the page cache
                    return null;
                }
            }
            return h.direct;
        }
    }

    private static void writeFully(FileChannel ch, ByteBuffer src, long offset) throws IOException {
        long at = offset;
        while (src.hasRemaining()) {
            at += ch.write(src, at);
        }
    }

    /**
     * Makes everything written to the file so far durable (fdatasync: data and the metadata needed to
     * read it back, such as its length), and its name ({@link #syncEntries}).
     */
    public void force(String relativePath) throws IOException {
        forceData(relativePath);
        syncEntries(List.of(relativePath));
    }

    /**
     * fdatasync of one file: what was written to it before this call is on disk (a file closed meanwhile is
     * opened again: the kernel flushes a file, not a descriptor). Its name may not be durable yet.
     */
    public void forceData(String relativePath) throws IOException {
        OpenFiles.Handle h = lease(relativePath);
        try {
            unflushed.remove(relativePath);
            h.channel.force(false);
        } finally {
            open.release(h);
        }
    }

    /** Whether {@link #syncFileSystem} can serve here (see {@link FileSystemSync}). */
    public boolean canSyncFileSystem() {
        return FileSystemSync.available();
    }

    /**
     * Opens the destination's file system for a later {@link #syncFileSystem}: open it before the first write of the
     * files it is to make durable, so that every write-back error from then on is reported to it.
     */
    public FileSystemSync openFileSystemSync() throws IOException {
        return FileSystemSync.open(tree.root());
    }

    /**
     * Makes what was written to {@code files}, and the names this writer made on the same file system, durable with
     * one sync of the file system {@code fs} (syncfs): for a group of many small files, in place of
     * {@link #forceData} of each and {@link #syncEntries}. Only what was written and made before the call counts as
     * durable, and {@code fs} must have been opened before the first of those writes. Each {@code fs} is synced once:
     * a second sync would not report an error the first one did.
     *
     * @return false, with nothing synced, where a file is not on the file system of {@code fs} (it is under a mount
     *     point inside the destination) or the tree cannot tell: sync those files one by one
     */
    public boolean syncFileSystem(FileSystemSync fs, Collection<String> files) throws IOException {
        return names.syncFileSystem(fs, files, () -> files.forEach(unflushed::remove));
    }

    /**
     * Makes the names of {@code files} durable where this writer created them: a new file's name lives in its
     * directory, and without syncing that too a power loss could lose the whole file even though its data was
     * synced. Each directory is synced once for all of them, and a directory this writer made gets its own entry
     * synced in its parent the first time.
     */
    public void syncEntries(Collection<String> files) throws IOException {
        syncEntries(files, Runnable::run);
    }

    /** As {@link #syncEntries(Collection)}, the directories synced on {@code pool}, several at once. */
    public void syncEntries(Collection<String> files, Executor pool) throws IOException {
        names.syncEntries(files, pool);
    }

    /**
     * Makes every name this writer made or changed durable: the files that got their own names, the empty files
     * and directories it created. Call before reporting a transfer complete.
     */
    public void syncNames() throws IOException {
        syncNames(Runnable::run);
    }

    /** As {@link #syncNames()}, the directories synced on {@code pool}, several at once. */
    public void syncNames(Executor pool) throws IOException {
        names.syncNames(pool);
    }

    /** The file's channel, opened (and created, with its directories) if it is not open now; release it after use. */
    private OpenFiles.Handle lease(String relativePath) throws IOException {
        if (closed) {
            throw new IOException("writer for " + tree.root() + " is closed");
        }
        String file = stored(relativePath);
        return open.lease(relativePath, () -> {
            createDirectories(DestinationTree.parent(file));
            Boolean existed = existedWhenPrepared.remove(relativePath);
            boolean created = existed != null ? !existed : !tree.exists(file);
            FileChannel ch;
            try {
                ch = tree.openFile(file);
            } catch (FileSystemException e) {
                throw open.explained(e, file);
            }
            if (created) {
                names.fileCreated(relativePath);
            }
            return ch;
        });
    }

    /** Closes one file (its blocks are all in); a later write opens it again. */
    public void closeFile(String relativePath) throws IOException {
        open.close(relativePath);
    }

    /** Files open now, for tests and diagnostics. */
    public int openFiles() {
        return open.size();
    }

    /** Closes every file. Names made or changed are durable only after {@link #syncNames}. */
    @Override
    public void close() throws IOException {
        closed = true;
        open.closeAll();
    }
}

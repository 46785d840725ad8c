package io.fsp.client.write;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Writes blocks at their offsets into files under one destination root.
 *
 * <p>Names come from the network (block headers, manifests), so every name is checked again here even
 * if a parser upstream already did: a relative path of plain segments, resolved one segment at a time,
 * never through a symbolic link, and always ending under the root. Files are opened once and kept
 * open until {@link #closeFile} or {@link #close}; positional writes on one {@link FileChannel} are
 * safe from many threads, so blocks of one file may be written concurrently and in any order.
 */
public final class PositionalWriter implements Closeable {
    /** Longest relative name accepted, in UTF-8 bytes (Linux PATH_MAX). */
    public static final int MAX_PATH_BYTES = 4096;
    /** Longest single segment accepted, in UTF-8 bytes (Linux NAME_MAX). */
    public static final int MAX_SEGMENT_BYTES = 255;

    private final DestinationTree tree;
    private final boolean directWrites;
    private final ConcurrentHashMap<String, FileChannel> open = new ConcurrentHashMap<>();
    /** O_DIRECT channels of the open files, for aligned writes. */
    private final ConcurrentHashMap<String, FileChannel> direct = new ConcurrentHashMap<>();
    private volatile int alignment;
    private volatile boolean directUnsupported;
    /** Files written under their temporary name until {@link #complete}. */
    private final Set<String> temporary = ConcurrentHashMap.newKeySet();
    /** Files created by this writer whose directory entries have not been synced yet. */
    private final Set<String> entryNotDurable = ConcurrentHashMap.newKeySet();
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
        this.tree = tree;
        this.directWrites = directWrites;
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
        List<String> segments = segments(relativePath);
        Path root = tree.root();
        Path p = root;
        for (String segment : segments) {
            p = p.resolve(segment);
            // A symbolic link anywhere on the way could point outside the root: refuse, do not follow.
            if (Files.isSymbolicLink(p)) {
                throw new UnsafePathException(relativePath, "goes through a symbolic link (expected: plain directories and files)");
            }
        }
        Path normal = p.normalize();
        if (!normal.startsWith(root) || normal.equals(root)) {
            throw new UnsafePathException(relativePath, "leaves the destination (expected: a relative path under it)");
        }
        return normal;
    }

    /** {@code relativePath} checked ({@link #segments}): the name the tree is given. */
    private static String checked(String relativePath) throws UnsafePathException {
        return String.join("/", segments(relativePath));
    }

    private static List<String> segments(String relativePath) throws UnsafePathException {
        if (relativePath == null || relativePath.isEmpty()) {
            throw new UnsafePathException(String.valueOf(relativePath), "empty (expected: a relative path)");
        }
        int bytes = relativePath.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_PATH_BYTES) {
            throw new UnsafePathException(relativePath.substring(0, 40) + "…",
                    "length: " + bytes + " bytes (expected: <= " + MAX_PATH_BYTES + ")");
        }
        if (relativePath.startsWith("/")) {
            throw new UnsafePathException(relativePath, "absolute (expected: a relative path)");
        }
        if (relativePath.indexOf('\\') >= 0 || relativePath.indexOf('\0') >= 0) {
            throw new UnsafePathException(relativePath, "contains a backslash or NUL (expected: '/'-separated segments)");
        }
        List<String> out = new ArrayList<>();
        for (String segment : relativePath.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw new UnsafePathException(relativePath, "segment \"" + segment + "\" (expected: no empty, '.' or '..' segments)");
            }
            int segmentBytes = segment.getBytes(StandardCharsets.UTF_8).length;
            if (segmentBytes > MAX_SEGMENT_BYTES) {
                throw new UnsafePathException(relativePath,
                        "segment length: " + segmentBytes + " bytes (expected: <= " + MAX_SEGMENT_BYTES + ")");
            }
            out.add(segment);
        }
        return out;
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
        return temporary.contains(relativePath) ? temporaryName(name) : name;
    }

    /**
     * {@code .NAME.fsp-part} beside the file; a name too long for that (file names have at most 255 bytes) is
     * replaced by a digest of it.
     */
    public static String temporaryName(String file) {
        String name = DestinationTree.last(file);
        String part = "." + name + ".fsp-part";
        if (part.getBytes(StandardCharsets.UTF_8).length > MAX_SEGMENT_BYTES) {
            try {
                byte[] d = java.security.MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
                part = "." + java.util.HexFormat.of().formatHex(d, 0, 16) + ".fsp-part";
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException("every Java runtime has SHA-256", e);
            }
        }
        return DestinationTree.child(DestinationTree.parent(file), part);
    }

    /**
     * As {@link #prepareFile}, but the bytes go to the file's temporary name ({@link #temporaryName}) until
     * {@link #complete}, so that an interrupted transfer never leaves something that looks finished under the
     * final name. A temporary file an earlier run left is continued. With {@code earlierRunWroteInPlace} and no
     * temporary file, the file is written where it is (an earlier run wrote blocks of it there).
     */
    public void prepareTemporaryFile(String relativePath, long size, boolean earlierRunWroteInPlace) throws IOException {
        String file = checked(relativePath);
        if (size > 0 && (tree.exists(temporaryName(file)) || !earlierRunWroteInPlace)) {
            temporary.add(relativePath);
        }
        prepareFile(relativePath, size);
    }

    /**
     * Every block of a file is in and durable: a file written under its temporary name gets its own, replacing
     * whatever had it, and the rename is made durable. Nothing to do for a file written in place.
     */
    public void complete(String relativePath) throws IOException {
        if (!temporary.contains(relativePath)) {
            return;
        }
        String file = checked(relativePath);
        channel(relativePath).force(false);
        closeFile(relativePath);
        tree.replace(temporaryName(file), file);
        temporary.remove(relativePath);
        entryNotDurable.remove(relativePath);
        syncDirectories(DestinationTree.parent(file));
    }

    /** Creates a (possibly empty) directory and its parents under the root. */
    public void createDirectory(String relativePath) throws IOException {
        String dir = checked(relativePath);
        tree.createDirectories(dir);
        syncDirectories(DestinationTree.parent(dir));
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
        FileChannel ch = channel(relativePath);
        long current = ch.size();
        if (current > size) {
            ch.truncate(size);
        } else if (current < size) {
            // Extends sparsely: the byte written lies past every byte that was ever written.
            writeFully(ch, ByteBuffer.allocate(1), size - 1);
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
        FileChannel ch = channel(relativePath);
        if (directWrites && !directUnsupported && aligned(data, offset)) {
            FileChannel d = directChannel(relativePath);
            if (d != null) {
                writeFully(d, data.duplicate(), offset);
                return;
            }
        }
        writeFully(ch, data.duplicate(), offset);
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

    /** The O_DIRECT channel of an open file, or null when the file system refuses O_DIRECT. */
    private FileChannel directChannel(String relativePath) throws IOException {
        FileChannel d = direct.get(relativePath);
        if (d != null) {
            return d;
        }
        synchronized (open) {
            d = direct.get(relativePath);
            if (d == null) {
                try {
                    d = tree.openDirect(stored(relativePath));
                } catch (IOException | UnsupportedOperationException e) {
                    directUnsupported = true; // e.g. tmpfs: every write goes through the page cache
                    return null;
                }
                direct.put(relativePath, d);
            }
            return d;
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
     * read it back, such as its length).
     */
    public void force(String relativePath) throws IOException {
        channel(relativePath).force(false);
        // A new file's name lives in its directory: without syncing that too, a power loss could
        // lose the whole file even though its data was synced.
        if (entryNotDurable.remove(relativePath)) {
            syncDirectories(DestinationTree.parent(checked(relativePath)));
        }
    }

    /** fsyncs {@code dir} and every directory above it up to the root. */
    private void syncDirectories(String dir) throws IOException {
        for (String d = dir; ; d = DestinationTree.parent(d)) {
            tree.sync(d);
            if (d.isEmpty()) {
                return;
            }
        }
    }

    /** The open channel of a file under the root, opening (and creating) it on first use. */
    public FileChannel channel(String relativePath) throws IOException {
        if (closed) {
            throw new IOException("writer for " + tree.root() + " is closed");
        }
        FileChannel ch = open.get(relativePath);
        if (ch != null) {
            return ch;
        }
        String file = stored(relativePath);
        tree.createDirectories(DestinationTree.parent(file));
        synchronized (open) {
            ch = open.get(relativePath);
            if (ch == null) {
                if (!tree.exists(file)) {
                    entryNotDurable.add(relativePath);
                }
                ch = tree.openFile(file);
                open.put(relativePath, ch);
            }
            return ch;
        }
    }

    /** Closes one file when all its blocks are in; later writes reopen it. */
    public void closeFile(String relativePath) throws IOException {
        FileChannel d = direct.remove(relativePath);
        if (d != null) {
            d.close();
        }
        FileChannel ch = open.remove(relativePath);
        if (ch != null) {
            ch.close();
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        IOException first = null;
        for (String name : List.copyOf(open.keySet())) {
            try {
                closeFile(name);
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}

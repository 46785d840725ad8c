package io.fsp.relay.store;

import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's directory on disk: {@code <directory>/<transfer id hex>/<seq>.blk}, each file exactly the block
 * bytes the server sent, with a retained transfer's metadata ({@link RetainedTransfer#FILE_NAME}) beside them.
 * Writes, reads and deletes these files; they block, so the store calls them on its disk executor.
 */
final class SpillFiles {
    private static final Logger log = LoggerFactory.getLogger(SpillFiles.class);
    private static final Pattern TRANSFER_DIR = Pattern.compile("[0-9a-f]{16}");
    private static final Pattern BLOCK_FILE = Pattern.compile("[0-9]{1,19}\\.blk");
    private static final String BLOCK_SUFFIX = ".blk";
    /** Every name the store writes in a transfer's directory, the metadata's temporary name too. */
    private static final Pattern OWN_FILE = Pattern.compile("[0-9]{1,19}\\.blk|" + RetainedTransfer.FILE_NAME
            + "|\\." + RetainedTransfer.FILE_NAME + "[0-9]*\\.tmp");

    private final Path directory;
    private final ByteBufAllocator alloc;

    SpillFiles(Path directory, ByteBufAllocator alloc) throws IOException {
        this.directory = directory;
        this.alloc = alloc;
        Files.createDirectories(directory);
    }

    Path transferDir(TransferId id) {
        return directory.resolve(id.toString());
    }

    Path blockFile(TransferId id, long seq) {
        return transferDir(id).resolve(seq + BLOCK_SUFFIX);
    }

    /** The directories of transfers an earlier run may have left, in name order. */
    List<Path> transferDirs() throws IOException {
        List<Path> dirs = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(directory)) {
            for (Path dir : s) {
                if (Files.isDirectory(dir) && TRANSFER_DIR.matcher(dir.getFileName().toString()).matches()) {
                    dirs.add(dir);
                }
            }
        }
        dirs.sort(null);
        return dirs;
    }

    /** Whether the store writes files of this name into a transfer's directory. */
    static boolean isOwnFile(String name) {
        return OWN_FILE.matcher(name).matches();
    }

    /** The digits a block file's name gives its sequence number in, or null if it names no block file. */
    static String blockSeq(String name) {
        return BLOCK_FILE.matcher(name).matches() ? name.substring(0, name.length() - BLOCK_SUFFIX.length()) : null;
    }

    /**
     * Writes {@code block}'s readable bytes to {@code file} (its directory made if need be); {@code force}: and to
     * the disk, so that it survives a crash once acknowledged. Leaves {@code block} as it is.
     */
    void write(Path file, ByteBuf block, boolean force) throws IOException {
        Files.createDirectories(file.getParent());
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            for (ByteBuffer b : block.nioBuffers()) {
                while (b.hasRemaining()) {
                    ch.write(b);
                }
            }
            if (force) {
                // The directory was forced when the transfer was opened; the file's new name is committed with
                // the file by the journalling file systems (ext4, XFS, btrfs).
                ch.force(true);
            }
        }
    }

    /**
     * The {@code size} bytes of a block file, in a buffer the caller releases; {@link NoSuchFileException} if the
     * file is gone, an {@link IOException} if it is shorter.
     */
    ByteBuf read(Path file, int size) throws IOException {
        ByteBuf buf = alloc.buffer(size, size);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            while (buf.writableBytes() > 0) {
                if (buf.writeBytes(ch, buf.writerIndex(), buf.writableBytes()) < 0) {
                    throw new IOException(file + ": " + buf.readableBytes() + " bytes (expected: " + size + ")");
                }
            }
            return buf;
        } catch (IOException | RuntimeException e) {
            buf.release();
            throw e;
        }
    }

    /**
     * The {@code size} bytes of a block file as a region for the kernel to send; {@link NoSuchFileException} if the
     * file is gone, an {@link IOException} if it is shorter. The region owns the open file.
     */
    io.netty.channel.FileRegion region(Path file, int size) throws IOException {
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
        try {
            if (ch.size() < size) {
                throw new IOException(file + ": " + ch.size() + " bytes (expected: " + size + ")");
            }
            return new io.netty.channel.DefaultFileRegion(ch, 0, size);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** Deletes {@code file}, and its directory if nothing else is left in it; a failure is logged. */
    static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
            Path dir = file.getParent();
            try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
                if (!s.iterator().hasNext()) {
                    Files.deleteIfExists(dir);
                }
            }
        } catch (IOException e) {
            // A directory another block is being written into is not empty; anything else is logged.
            if (!(e instanceof DirectoryNotEmptyException) && !(e instanceof NoSuchFileException)) {
                log.warn("cannot delete {}: {}", file, e.toString());
            }
        }
    }

    /** Deletes what the store wrote into {@code dir}, and the directory if nothing else is left in it. */
    static void deleteLeftovers(Path dir) throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                if (isOwnFile(f.getFileName().toString())) {
                    Files.deleteIfExists(f);
                }
            }
        }
        try {
            Files.deleteIfExists(dir);
        } catch (DirectoryNotEmptyException e) {
            log.warn("{}: not empty after removing what the relay left there; left alone", dir);
        }
    }
}

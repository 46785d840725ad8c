package io.fsp.client.verify;

import com.sun.nio.file.ExtendedOpenOption;
import io.fsp.checksum.Hasher;
import io.fsp.client.write.PositionalWriter;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;

/**
 * Hashes what is really on disk: reads a block's range with {@code O_DIRECT}, so the read cannot be
 * served from the page cache that still holds the bytes the application wrote (paper 001 §4: an
 * undetected write error is only visible on the medium). Reads are aligned to the file system's block
 * size, as {@code O_DIRECT} requires; the bytes outside the block's range are read but not hashed.
 *
 * <p>Not thread-safe: one instance per re-reading thread.
 */
public final class RivaVerifier implements Closeable {
    private static final int CHUNK = 1 << 20;
    /** Direct-read channels kept open at most; a directory tree can have many more files. */
    private static final int MAX_OPEN = 64;

    private final Map<Path, FileChannel> direct = new HashMap<>();
    private int alignment;
    private ByteBuffer buffer;

    /** Digests {@code length} bytes at {@code offset} of {@code file} as read from the device. */
    public byte[] hashFromDisk(Path file, long offset, int length, Hasher hasher) throws IOException {
        update(file, offset, length, hasher);
        return hasher.finish().value();
    }

    /** Digests a block as read from the device, part after part, in the files of {@code files}. */
    public byte[] hashFromDisk(PositionalWriter files, BlockRef block, Hasher hasher) throws IOException {
        for (BlockRef.Part part : block.parts()) {
            update(files.location(part.path()), part.offset(), part.length(), hasher);
        }
        return hasher.finish().value();
    }

    /** Hashes {@code length} bytes at {@code offset} of {@code file} as read from the device into {@code hasher}. */
    public void update(Path file, long offset, int length, Hasher hasher) throws IOException {
        FileChannel ch = channel(file);
        long end = offset + length;
        long pos = offset - offset % alignment;
        while (pos < end) {
            long wanted = Math.min(CHUNK, roundUp(end - pos, alignment));
            buffer.clear().limit((int) wanted);
            int n = ch.read(buffer, pos);
            if (n <= 0 || (n < wanted && pos + n < end)) {
                throw new IOException(file.getFileName() + ": ends at " + (pos + Math.max(n, 0)) + " (expected: >= " + end + ")");
            }
            int from = (int) Math.max(0, offset - pos);
            int to = (int) Math.min(n, end - pos);
            hasher.update(buffer.duplicate().limit(to).position(from));
            pos += n;
        }
    }

    private FileChannel channel(Path file) throws IOException {
        FileChannel ch = direct.get(file);
        if (ch != null) {
            return ch;
        }
        if (buffer == null) {
            alignment = (int) Math.max(512, Files.getFileStore(file).getBlockSize());
            buffer = ByteBuffer.allocateDirect(CHUNK + alignment).alignedSlice(alignment);
        }
        try {
            ch = FileChannel.open(file, StandardOpenOption.READ, ExtendedOpenOption.DIRECT);
        } catch (IOException | UnsupportedOperationException e) {
            throw new IOException(file.getFileName() + ": cannot read around the page cache (O_DIRECT: "
                    + e.getMessage() + "); use --verify fiver on this file system", e);
        }
        if (direct.size() >= MAX_OPEN) {
            close();
        }
        direct.put(file, ch);
        return ch;
    }

    private static long roundUp(long n, int to) {
        return (n + to - 1) / to * to;
    }

    /** Closes the channel of one file (when its last block is verified). */
    public void forget(Path file) throws IOException {
        FileChannel ch = direct.remove(file);
        if (ch != null) {
            ch.close();
        }
    }

    @Override
    public void close() throws IOException {
        for (FileChannel ch : direct.values()) {
            ch.close();
        }
        direct.clear();
    }
}

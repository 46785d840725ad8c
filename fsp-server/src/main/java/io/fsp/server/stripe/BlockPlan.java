package io.fsp.server.stripe;

import io.fsp.extension.ExtensionLimits;
import io.fsp.extension.FileSegment;

import java.util.List;

/**
 * The numbering of a transfer's blocks, made once. The files, in order, are one stream of bytes: a file of at least
 * {@code blockSize} bytes is cut into blocks of its own ({@code blockSize} bytes, the last one shorter); smaller files
 * are packed, whole, into blocks of up to {@code blockSize} bytes and {@link ExtensionLimits#MAX_FILES_PER_BLOCK}
 * files, so a tree of small files costs a block per {@code blockSize} bytes, not one per file. Blocks are numbered
 * from 0; an empty file has none. It keeps one number per file (the block its first byte is in), never one object
 * per block: block {@code seq} is found by a binary search over the files with bytes, so a plan of a billion
 * blocks costs what a plan of one does.
 */
public final class BlockPlan {
    /**
     * Block {@code seq}: {@code length} bytes from {@code offset} of file {@code file}, running on into the next
     * files when it carries several ({@link #segments}); {@code endOfFile} when it ends at the end of a file.
     */
    public record Block(long seq, int file, long offset, int length, boolean endOfFile) {
    }

    /** What {@code block-size=auto} starts from, for small transfers, and the most it grows to. */
    static final int AUTO_SMALLEST = 1 << 20;
    static final int AUTO_LARGEST = 4 << 20;
    /** The fewest blocks {@code auto} leaves a transfer when it makes them larger. */
    static final long AUTO_FEWEST_BLOCKS = 32;

    private final int blockSize;
    private final long[] sizes;
    /** The indices of the files with bytes, in order. */
    private final int[] filled;
    /** {@code first[i]} is the block of file {@code filled[i]}'s first byte; {@code first[filled.length]} the count. */
    private final long[] first;

    /**
     * @throws TransferTooLargeException if the files make more than {@code maxBlocks} blocks
     */
    public BlockPlan(List<Long> fileSizes, int blockSize, long maxBlocks) throws TransferTooLargeException {
        if (blockSize <= 0) {
            throw new IllegalArgumentException("block size: " + blockSize + " (expected: > 0)");
        }
        this.blockSize = blockSize;
        this.sizes = new long[fileSizes.size()];
        int withBytes = 0;
        for (int f = 0; f < sizes.length; f++) {
            long size = fileSizes.get(f);
            if (size < 0) {
                throw new IllegalArgumentException("file " + f + " size: " + size + " (expected: >= 0)");
            }
            sizes[f] = size;
            withBytes += size > 0 ? 1 : 0;
        }
        this.filled = new int[withBytes];
        this.first = new long[withBytes + 1];
        long count = 0;
        long packBytes = 0; // bytes of the open pack, 0: none open
        int packFirst = 0;  // the open pack's first file
        for (int f = 0, i = 0; f < sizes.length; f++) {
            long size = sizes[f];
            if (size == 0) {
                continue;
            }
            boolean fits = size < blockSize && packBytes > 0 && packBytes + size <= blockSize
                    && f - packFirst < ExtensionLimits.MAX_FILES_PER_BLOCK;
            if (fits) {
                packBytes += size;
                first[i] = count - 1; // the open pack's block
            } else {
                first[i] = count;
                count += size / blockSize + (size % blockSize == 0 ? 0 : 1); // < 2^51 per file: no overflow
                packBytes = size < blockSize ? size : 0;
                packFirst = f;
            }
            filled[i++] = f;
        }
        first[withBytes] = count;
        if (count > maxBlocks) {
            throw TransferTooLargeException.blocks(count, blockSize, maxBlocks);
        }
    }

    /**
     * The block size {@code block-size=auto} gives a transfer of {@code totalBytes}: 1 MiB, doubled up to 4 MiB while
     * the transfer keeps at least 32 blocks. Every block costs each process the same whatever its size (a request, an
     * announcement, a relay's store, a verdict), so a large transfer goes faster in large blocks (a file of 512 MiB via
     * three relays: 1.67 s in blocks of 1 MiB, 1.38 s in 4 MiB); 32 blocks still keep every relay's fetches and the
     * pipeline busy, and a small transfer keeps 1 MiB.
     */
    public static int automaticBlockSize(long totalBytes) {
        int size = AUTO_SMALLEST;
        while (size < AUTO_LARGEST && totalBytes / (2L * size) >= AUTO_FEWEST_BLOCKS) {
            size *= 2;
        }
        return size;
    }

    /** How many blocks the transfer has. */
    public long count() {
        return first[filled.length];
    }

    public int blockSize() {
        return blockSize;
    }

    /** Block {@code seq}, {@code 0 <= seq < count()}. */
    public Block block(long seq) {
        if (seq < 0 || seq >= count()) {
            throw new IndexOutOfBoundsException("block: " + seq + " (expected: 0.." + (count() - 1) + ")");
        }
        int i = lowestAtLeast(seq);
        if (i < filled.length && first[i] == seq) { // the block starts at a file's first byte
            int file = filled[i];
            if (i + 1 < filled.length && first[i + 1] == seq) { // and carries the next files too
                long length = 0;
                for (int j = i; j < filled.length && first[j] == seq; j++) {
                    length += sizes[filled[j]];
                }
                return new Block(seq, file, 0, (int) length, true);
            }
            int length = (int) Math.min(blockSize, sizes[file]);
            return new Block(seq, file, 0, length, length == sizes[file]);
        }
        int file = filled[i - 1]; // inside a large file
        long offset = (seq - first[i - 1]) * blockSize;
        int length = (int) Math.min(blockSize, sizes[file] - offset);
        return new Block(seq, file, offset, length, offset + length == sizes[file]);
    }

    /** The bytes of each file that block {@code b} holds, in order. */
    public List<FileSegment> segments(Block b) {
        return FileSegment.of(b.file(), b.offset(), b.length(), sizes.length, f -> sizes[f]);
    }

    /** The smallest {@code i} with {@code first[i] >= seq} ({@code filled.length} if none). */
    private int lowestAtLeast(long seq) {
        int lo = 0;
        int hi = filled.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (first[mid] < seq) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    @Override
    public String toString() {
        return count() + " blocks of up to " + blockSize + " bytes in " + sizes.length + " files";
    }
}

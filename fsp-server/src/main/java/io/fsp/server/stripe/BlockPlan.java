package io.fsp.server.stripe;

import java.util.List;

/**
 * The numbering of a transfer's blocks, made once: the files in order, each cut into blocks of
 * {@code blockSize} bytes (the last one shorter), numbered from 0 across all files; an empty file has none.
 * It keeps one number per file (the sequence number of its first block), never one object per block: block
 * {@code seq} is found by a binary search over the files, so a plan of a billion blocks costs what a plan of
 * one does.
 */
public final class BlockPlan {
    /** Block {@code seq}: {@code length} bytes at {@code offset} of file {@code file}. */
    public record Block(long seq, int file, long offset, int length, boolean endOfFile) {
    }

    private final int blockSize;
    private final long[] sizes;
    /** {@code first[f]} is the number of file {@code f}'s first block; {@code first[files]} the block count. */
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
        this.first = new long[fileSizes.size() + 1];
        long count = 0;
        for (int f = 0; f < sizes.length; f++) {
            long size = fileSizes.get(f);
            if (size < 0) {
                throw new IllegalArgumentException("file " + f + " size: " + size + " (expected: >= 0)");
            }
            sizes[f] = size;
            first[f] = count;
            count += size / blockSize + (size % blockSize == 0 ? 0 : 1); // < 2^51 per file: the sum cannot overflow
        }
        first[sizes.length] = count;
        if (count > maxBlocks) {
            throw TransferTooLargeException.blocks(count, blockSize, maxBlocks);
        }
    }

    /** How many blocks the transfer has. */
    public long count() {
        return first[sizes.length];
    }

    public int blockSize() {
        return blockSize;
    }

    /** The number of file {@code file}'s first block (or, for an empty file, of the next file's first). */
    public long firstOf(int file) {
        return first[file];
    }

    /** How many blocks file {@code file} has. */
    public long countOf(int file) {
        return first[file + 1] - first[file];
    }

    /** Block {@code seq}, {@code 0 <= seq < count()}. */
    public Block block(long seq) {
        if (seq < 0 || seq >= count()) {
            throw new IndexOutOfBoundsException("block: " + seq + " (expected: 0.." + (count() - 1) + ")");
        }
        return block(seq, fileOf(seq));
    }

    /** Block {@code seq}, known to lie in file {@code file}. */
    Block block(long seq, int file) {
        long offset = (seq - first[file]) * blockSize;
        int length = (int) Math.min(blockSize, sizes[file] - offset);
        return new Block(seq, file, offset, length, offset + length == sizes[file]);
    }

    /**
     * The file block {@code seq} lies in: the last file whose first block number is at most {@code seq}.
     * Empty files share their number with the next file, so the last of equal numbers is the one with blocks.
     */
    private int fileOf(long seq) {
        int lo = 0;
        int hi = sizes.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (first[mid] <= seq) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }

    @Override
    public String toString() {
        return count() + " blocks of " + blockSize + " bytes in " + sizes.length + " files";
    }
}

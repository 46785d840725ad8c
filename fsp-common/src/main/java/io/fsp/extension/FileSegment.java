package io.fsp.extension;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToLongFunction;

/**
 * The bytes of one file that a block holds. The transfer's files, taken in index order, are one stream of bytes;
 * a block is a run of it that starts at an offset of its first file. A large file is cut into blocks of its own; a
 * block that carries small files starts at the first byte of the first and runs on into the next ones, whole.
 * Empty files on the way take no bytes and have no segment. Both ends compute a block's segments from the FILE
 * sizes, so the wire names only the block's first file, offset and length (docs/protocol.md §1.6).
 */
public record FileSegment(int file, long offset, int length) {
    public FileSegment {
        if (file < 0 || offset < 0 || length < 0) {
            throw new IllegalArgumentException("segment: file " + file + " @" + offset + "+" + length
                    + " (expected: non-negative)");
        }
    }

    public long end() {
        return offset + length;
    }

    /**
     * The segments of the block of {@code length} bytes that starts at {@code offset} of file {@code file}, among
     * {@code files} files whose sizes {@code sizeOf} gives.
     *
     * @throws IllegalArgumentException if the block does not start inside its file, runs past the last file, or
     *         spans more than {@link ExtensionLimits#MAX_FILES_PER_BLOCK} files
     */
    public static List<FileSegment> of(int file, long offset, int length, int files, IntToLongFunction sizeOf) {
        if (file < 0 || file >= files) {
            throw new IllegalArgumentException("file " + file + " (expected: 0.." + (files - 1) + ")");
        }
        long size = sizeOf.applyAsLong(file);
        if (offset < 0 || length < 0 || offset > size || offset == size && length > 0) {
            throw new IllegalArgumentException("bytes " + offset + "+" + length + " (expected: starting inside file "
                    + file + " of " + size + " bytes)");
        }
        if (offset + length <= size) { // the common case: inside one file
            return List.of(new FileSegment(file, offset, length));
        }
        List<FileSegment> out = new ArrayList<>();
        long remaining = length;
        long pos = offset;
        for (int f = file; remaining > 0; f++, pos = 0) {
            if (f >= files) {
                throw new IllegalArgumentException("bytes " + offset + "+" + length + " from file " + file
                        + ": run past the last file by " + remaining + " bytes (expected: inside the transfer's files)");
            }
            if (f - file >= ExtensionLimits.MAX_FILES_PER_BLOCK) {
                throw new IllegalArgumentException("bytes " + offset + "+" + length + " from file " + file
                        + ": span more than " + ExtensionLimits.MAX_FILES_PER_BLOCK + " files (expected: at most that many)");
            }
            long bytes = f == file ? size - pos : sizeOf.applyAsLong(f);
            if (bytes < 0) {
                throw new IllegalArgumentException("file " + f + ": size unknown (expected: an announced file)");
            }
            long take = Math.min(bytes, remaining);
            if (take > 0) {
                out.add(new FileSegment(f, pos, (int) take));
                remaining -= take;
            }
        }
        return out;
    }
}

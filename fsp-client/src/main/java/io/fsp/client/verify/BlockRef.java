package io.fsp.client.verify;

import java.util.List;

/**
 * Where a block belongs: a file named relative to the destination root ('/'-separated), the offset of the block's
 * first byte in that file, and its plaintext length; these three name the block (in the journal too). A block that
 * carries several small files runs on into the next ones: {@code parts} says which bytes of which file, in order.
 */
public record BlockRef(String path, long offset, int length, List<Part> parts) {
    /** Bytes {@code offset} to {@code offset + length} of one file. */
    public record Part(String path, long offset, int length) {
    }

    public BlockRef {
        if (path == null || path.isEmpty()) {
            throw new IllegalArgumentException("path: empty (expected: a relative file name)");
        }
        if (offset < 0) {
            throw new IllegalArgumentException("offset: " + offset + " (expected: >= 0)");
        }
        if (length < 0) {
            throw new IllegalArgumentException("length: " + length + " (expected: >= 0)");
        }
        parts = List.copyOf(parts);
        long sum = parts.stream().mapToLong(Part::length).sum();
        if (parts.isEmpty() || !parts.get(0).path().equals(path) || parts.get(0).offset() != offset || sum != length) {
            throw new IllegalArgumentException("parts: " + parts + " (expected: " + length + " bytes from " + path + "@"
                    + offset + ")");
        }
    }

    /** A block inside one file. */
    public BlockRef(String path, long offset, int length) {
        this(path, offset, length, List.of(new Part(path, offset, length)));
    }

    /** The offset just past the block's last byte, when it lies in one file. */
    public long end() {
        return offset + length;
    }

    @Override
    public String toString() {
        return path + "@" + offset + "+" + length + (parts.size() > 1 ? " (" + parts.size() + " files)" : "");
    }
}

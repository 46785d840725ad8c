package io.fsp.client.verify;

/**
 * Where a block belongs: a file named relative to the destination root ('/'-separated), the offset of
 * the block's first byte in that file, and its plaintext length.
 */
public record BlockRef(String path, long offset, int length) {
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
    }

    /** The offset just past the block's last byte. */
    public long end() {
        return offset + length;
    }

    @Override
    public String toString() {
        return path + "@" + offset + "+" + length;
    }
}

package io.fsp.server.ftp;

/**
 * The bytes {@code [offset, offset + length)} of a file that a checksum command reads; a {@code length} of
 * {@link #TO_END} reads from {@code offset} to the end of the file.
 */
public record FileRange(long offset, long length) {
    public static final long TO_END = -1;
    /** The whole file. */
    public static final FileRange WHOLE = new FileRange(0, TO_END);

    public FileRange {
        if (offset < 0 || length < TO_END || (length != TO_END && offset > Long.MAX_VALUE - length)) {
            throw new IllegalArgumentException("offset: " + offset + ", length: " + length
                    + " (expected: offset >= 0, length >= -1, offset + length <= " + Long.MAX_VALUE + ")");
        }
    }

    /** The number of bytes this range covers in a file of {@code size} bytes; -1 if it does not lie within it. */
    public long lengthWithin(long size) {
        if (offset > size) {
            return -1;
        }
        if (length == TO_END) {
            return size - offset;
        }
        return offset + length <= size ? length : -1;
    }
}

package io.fsp.block;

/**
 * The sizes a receiver accepts. Every length field is checked against these before a single byte of that
 * length is buffered or allocated.
 *
 * @param maxDataLength most file bytes in one block (before compression), default 16 MiB
 * @param maxNameLength most bytes of the UTF-8 relative file name, default 4096 (Linux PATH_MAX)
 */
public record BlockLimits(int maxDataLength, int maxNameLength) {
    /** Largest data length the format can express safely in one Java buffer. */
    public static final int MAX_DATA_LENGTH = 1 << 30;
    public static final BlockLimits DEFAULT = new BlockLimits(16 * 1024 * 1024, 4096);

    public BlockLimits {
        if (maxDataLength < 1 || maxDataLength > MAX_DATA_LENGTH) {
            throw new IllegalArgumentException("maxDataLength: " + maxDataLength + " (expected: 1.." + MAX_DATA_LENGTH + ")");
        }
        if (maxNameLength < 1 || maxNameLength > BlockDescriptor.MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("maxNameLength: " + maxNameLength
                    + " (expected: 1.." + BlockDescriptor.MAX_NAME_LENGTH + ")");
        }
    }

    /** Largest header: fixed part plus a clear descriptor with the longest name. */
    public int maxHeaderLength() {
        return BlockHeader.FIXED_LENGTH + BlockDescriptor.FIXED_LENGTH + maxNameLength;
    }

    /** Largest payload: a sealed descriptor with the longest name, the data and the GCM tag. */
    public int maxPayloadLength() {
        return BlockDescriptor.FIXED_LENGTH + maxNameLength + maxDataLength + BlockHeader.TAG_LENGTH;
    }

    /** Largest whole block on the wire, with the longest checksum. */
    public int maxBlockLength() {
        return maxHeaderLength() + maxPayloadLength() + 32;
    }
}

package io.fsp.relaylink.wire;

/**
 * Size limits of relay frames. Control frames are small and fixed; a block frame may carry at most
 * {@code maxBlockBytes} of block data, which bounds what a decoder buffers for one frame.
 */
public record RelayLimits(int maxBlockBytes) {
    /** Largest body of any frame that carries no block bytes. */
    public static final int MAX_CONTROL_BODY = 64 * 1024;
    public static final int MAX_CONFIRM_SEQS = 4096;
    public static final int MAX_TOKEN_BYTES = 256;
    /** Longest ERROR text in characters; its UTF-8 form is at most 3 bytes per character. */
    public static final int MAX_ERROR_TEXT = 512;
    public static final int DEFAULT_MAX_BLOCK_BYTES = 32 * 1024 * 1024;
    private static final int MAX_MAX_BLOCK_BYTES = 1 << 30;

    public static final RelayLimits DEFAULT = new RelayLimits(DEFAULT_MAX_BLOCK_BYTES);

    public RelayLimits {
        if (maxBlockBytes < 1 || maxBlockBytes > MAX_MAX_BLOCK_BYTES) {
            throw new IllegalArgumentException("maxBlockBytes: " + maxBlockBytes + " (expected: 1.."
                    + MAX_MAX_BLOCK_BYTES + ")");
        }
    }
}

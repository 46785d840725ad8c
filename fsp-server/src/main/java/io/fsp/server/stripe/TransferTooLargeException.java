package io.fsp.server.stripe;

import java.io.IOException;

/**
 * A transfer would have more blocks, or more files and directories, than the server's
 * {@code max-blocks-per-transfer}: found while planning, before anything per block is kept or sent.
 */
public final class TransferTooLargeException extends IOException {
    private static final long serialVersionUID = 1L;

    private TransferTooLargeException(String message) {
        super(message);
    }

    static TransferTooLargeException blocks(long blocks, int blockSize, long maxBlocks) {
        return new TransferTooLargeException("blocks: " + blocks + " of " + blockSize + " bytes (expected: <= " + maxBlocks
                + ", the server's max-blocks-per-transfer; use a larger block-size)");
    }

    static TransferTooLargeException entries(long maxEntries) {
        return new TransferTooLargeException("files and directories: more than " + maxEntries + " (expected: <= "
                + maxEntries + ", the server's max-blocks-per-transfer)");
    }
}

package io.fsp.server.stripe;

import java.io.IOException;

/** A transfer would have more blocks than the server's {@code max-blocks-per-transfer}. */
public final class TooManyBlocksException extends IOException {
    private static final long serialVersionUID = 1L;

    TooManyBlocksException(long blocks, int blockSize, long maxBlocks) {
        super("blocks: " + blocks + " of " + blockSize
                + " bytes (expected: <= " + maxBlocks + ", the server's max-blocks-per-transfer; use a larger block-size)");
    }
}

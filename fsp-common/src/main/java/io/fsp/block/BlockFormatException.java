package io.fsp.block;

import io.netty.handler.codec.CorruptedFrameException;

/**
 * A block that breaks the format of docs/protocol.md §2. The message names the block ({@code block
 * <transfer>#<sequence>}) when the header got far enough to know it. The receiver drops the block and the
 * stream it came on; it never writes the block's data.
 */
public class BlockFormatException extends CorruptedFrameException {
    private static final long serialVersionUID = 1L;

    public BlockFormatException(String message) {
        super(message);
    }

    public BlockFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}

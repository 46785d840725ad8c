package io.fsp.block;

import io.netty.handler.codec.TooLongFrameException;

/** A length field over the receiver's {@link BlockLimits}; raised before anything of that size is allocated. */
public class BlockTooLongException extends TooLongFrameException {
    private static final long serialVersionUID = 1L;

    public BlockTooLongException(String message) {
        super(message);
    }
}

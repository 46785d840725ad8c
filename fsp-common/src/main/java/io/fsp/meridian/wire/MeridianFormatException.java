package io.fsp.meridian.wire;

import io.netty.handler.codec.CorruptedFrameException;

/** A Meridian datagram that is malformed, oversized or of an unknown version or type. */
public final class MeridianFormatException extends CorruptedFrameException {
    private static final long serialVersionUID = 1L;

    public MeridianFormatException(String message) {
        super(message);
    }
}

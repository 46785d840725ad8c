package io.fsp.client.collect;

import java.io.IOException;

/** The destination's file system has no room for what the transfer still has to write: found before the first byte, or when a write failed for it. */
public final class NotEnoughSpaceException extends IOException {
    private static final long serialVersionUID = 1L;

    public NotEnoughSpaceException(String message) {
        super(message);
    }
}

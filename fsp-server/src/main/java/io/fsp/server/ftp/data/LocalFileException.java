package io.fsp.server.ftp.data;

import java.io.IOException;

/** A failure of the local file during a transfer (disk full, I/O error), as opposed to the network. */
public final class LocalFileException extends IOException {
    private static final long serialVersionUID = 1L;

    public LocalFileException(IOException cause) {
        super(cause.getMessage(), cause);
    }
}

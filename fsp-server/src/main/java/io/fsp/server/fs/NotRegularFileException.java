package io.fsp.server.fs;

import java.nio.file.FileSystemException;

/** A file was to be opened, and the entry is a directory, a link, a FIFO, a socket or a device. */
public final class NotRegularFileException extends FileSystemException {
    private static final long serialVersionUID = 1L;

    public NotRegularFileException(String file, String kind) {
        super(file, null, "not a regular file: " + kind);
    }
}

package io.fsp.server.ftp.data;

import java.io.IOException;

/** The data connection could not be made or secured; answered with 425. */
public final class DataConnectionException extends IOException {
    private static final long serialVersionUID = 1L;

    public DataConnectionException(String message) {
        super(message);
    }

    public DataConnectionException(String message, Throwable cause) {
        super(message, cause);
    }
}

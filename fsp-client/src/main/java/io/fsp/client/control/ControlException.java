package io.fsp.client.control;

import java.io.IOException;

/** The server refused a command, answered something unexpected, or the control connection failed. */
public final class ControlException extends IOException {
    private final int code;

    public ControlException(String message) {
        this(message, 0, null);
    }

    public ControlException(String message, int code, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    /** The reply code the server sent, or 0 when there was none. */
    public int code() {
        return code;
    }
}

package io.fsp.block;

/** The version byte names a format this receiver does not know. */
public class UnsupportedBlockVersionException extends BlockFormatException {
    private static final long serialVersionUID = 1L;

    public UnsupportedBlockVersionException(String message) {
        super(message);
    }

    public UnsupportedBlockVersionException(String message, Throwable cause) {
        super(message, cause);
    }
}

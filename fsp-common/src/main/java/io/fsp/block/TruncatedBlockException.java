package io.fsp.block;

/** The stream or buffer ended inside a block, or a field runs past the end of its enclosing part. */
public class TruncatedBlockException extends BlockFormatException {
    private static final long serialVersionUID = 1L;

    public TruncatedBlockException(String message) {
        super(message);
    }

    public TruncatedBlockException(String message, Throwable cause) {
        super(message, cause);
    }
}

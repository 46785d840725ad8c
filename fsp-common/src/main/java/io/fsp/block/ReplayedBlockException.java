package io.fsp.block;

/** A block whose sequence number this receiver already accepted. */
public class ReplayedBlockException extends BlockFormatException {
    private static final long serialVersionUID = 1L;

    public ReplayedBlockException(String message) {
        super(message);
    }

    public ReplayedBlockException(String message, Throwable cause) {
        super(message, cause);
    }
}

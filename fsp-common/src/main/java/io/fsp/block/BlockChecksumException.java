package io.fsp.block;

/** The wire checksum does not match the bytes received: corrupted between hops. */
public class BlockChecksumException extends BlockFormatException {
    private static final long serialVersionUID = 1L;

    public BlockChecksumException(String message) {
        super(message);
    }

    public BlockChecksumException(String message, Throwable cause) {
        super(message, cause);
    }
}

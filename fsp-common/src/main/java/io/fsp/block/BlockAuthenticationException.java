package io.fsp.block;

/** The AES-GCM tag does not verify: the header or payload was altered, moved to another sequence number or transfer, or the key is wrong. */
public class BlockAuthenticationException extends BlockFormatException {
    private static final long serialVersionUID = 1L;

    public BlockAuthenticationException(String message) {
        super(message);
    }

    public BlockAuthenticationException(String message, Throwable cause) {
        super(message, cause);
    }
}

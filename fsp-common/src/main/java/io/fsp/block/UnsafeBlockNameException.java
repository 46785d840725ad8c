package io.fsp.block;

/** A relative file name that is not safe to join to a target directory (absolute, contains .., NUL, a backslash, a drive letter …). */
public class UnsafeBlockNameException extends BlockFormatException {
    private static final long serialVersionUID = 1L;

    public UnsafeBlockNameException(String message) {
        super(message);
    }

    public UnsafeBlockNameException(String message, Throwable cause) {
        super(message, cause);
    }
}

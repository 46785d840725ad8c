package io.fsp.client.write;

import java.io.IOException;

/** A relative file name that would leave the destination root, or that no file system should accept. */
public final class UnsafePathException extends IOException {
    private static final long serialVersionUID = 1L;

    public UnsafePathException(String relativePath, String reason) {
        super("path \"" + printable(relativePath) + "\": " + reason);
    }

    /** Control characters are shown escaped so a hostile name cannot rewrite the terminal. */
    private static String printable(String s) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), 200));
        for (int i = 0; i < s.length() && b.length() < 200; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                b.append(String.format("\\x%02x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}

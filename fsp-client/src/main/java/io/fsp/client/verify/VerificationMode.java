package io.fsp.client.verify;

import java.util.Locale;

/** How the client proves that the bytes on its disk are the bytes that left the server. */
public enum VerificationMode {
    /** Hash the buffers being written, concurrently with the write; flush; then compare (paper 000). */
    FIVER,
    /** Flush, then re-read the range from disk bypassing the page cache and hash that (paper 001). */
    RIVA,
    /** Write and flush only; blocks are reported written, never verified. */
    OFF;

    /** Parses {@code fiver}, {@code riva} or {@code off}, as given on the command line. */
    public static VerificationMode parse(String text) {
        for (VerificationMode m : values()) {
            if (m.name().equalsIgnoreCase(text.trim())) {
                return m;
            }
        }
        throw new IllegalArgumentException("verify: " + text + " (expected: fiver, riva or off)");
    }

    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }
}

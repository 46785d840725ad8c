package io.fsp.program;

import java.io.IOException;

/**
 * The exit codes of FSP's programs ({@code fsp}, {@code fsp-server}, {@code fsp-relay}), one meaning each; README and
 * docs/protocol.md §1 list them. {@link #of} decides what an exception that escapes a command means.
 */
public final class ExitCode {
    public static final int OK = 0;
    /** Connection, certificate, login, refused command, missing file, a destination in use or in the way; the message says which. */
    public static final int FAILURE = 1;
    /** Bad options or arguments: the command line parser's errors and a command's own checks of its options. */
    public static final int USAGE = 2;
    public static final int VERIFICATION_FAILED = 3;
    /** A bug; the message says where. */
    public static final int INTERNAL = 4;
    public static final int PARTIAL = 5;
    public static final int UNTRUSTED_ORIGIN = 6;

    private ExitCode() {
    }

    /**
     * What {@code t}, escaping a command, means: I/O (a connection, a reply, a file) {@link #FAILURE}, anything else
     * {@link #INTERNAL}. An {@link IllegalArgumentException} from deep inside (a bug, or a peer's bad data) is not a
     * usage error: commands check their options before they start and answer {@link #USAGE} themselves (the command
     * line parser's errors are the programs' to map).
     */
    public static int of(Throwable t) {
        if (t instanceof IOException) {
            return FAILURE;
        }
        return INTERNAL;
    }
}

package io.fsp.client.cli;

import io.fsp.client.control.ControlException;
import java.io.IOException;
import picocli.CommandLine;

/**
 * The exit codes of {@code fsp} (docs/protocol.md §1, "FSP extension" and README):
 * <ul>
 *   <li>0 — done: every block on disk and verified (or written, with {@code --verify off})</li>
 *   <li>1 — failure: connection, login, refused command, missing file; the message says which</li>
 *   <li>2 — usage: bad options or arguments</li>
 *   <li>3 — verification failed: some block could not be verified from any source; rerun to resume</li>
 *   <li>4 — internal error: a bug; the message and log say where</li>
 *   <li>5 — partial ({@code fsp evacuate}, {@code fsp collect}): what is safe is done and named, the rest could not
 *       be: the deadline came, no relay took some blocks, or the manifest does not hold every file whole</li>
 * </ul>
 * One mapper turns what a subcommand throws into these codes.
 */
public final class ExitCodes implements CommandLine.IExitCodeExceptionMapper {
    public static final int OK = 0;
    public static final int FAILURE = 1;
    public static final int USAGE = 2;
    public static final int VERIFICATION_FAILED = 3;
    public static final int INTERNAL = 4;
    public static final int PARTIAL = 5;

    @Override
    public int getExitCode(Throwable t) {
        if (t instanceof CommandLine.ParameterException || t instanceof IllegalArgumentException) {
            return USAGE;
        }
        if (t instanceof ControlException || t instanceof IOException) {
            return FAILURE;
        }
        return INTERNAL;
    }
}

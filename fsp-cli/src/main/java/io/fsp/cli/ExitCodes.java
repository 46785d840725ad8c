package io.fsp.cli;

import io.fsp.program.ExitCode;
import picocli.CommandLine;

/**
 * The exit codes of {@code fsp} ({@link ExitCode}'s), with the one description of each: the commands' help lists them
 * from the {@code *_HELP} constants here ({@code exitCodeList}), README and docs/protocol.md §1 say the same.
 * {@link #getExitCode} turns what a subcommand throws into these codes: picocli's parameter errors {@link #USAGE}, the
 * rest as {@link ExitCode#of} says.
 */
public final class ExitCodes implements CommandLine.IExitCodeExceptionMapper {
    public static final int OK = ExitCode.OK;
    public static final int FAILURE = ExitCode.FAILURE;
    public static final int USAGE = ExitCode.USAGE;
    public static final int VERIFICATION_FAILED = ExitCode.VERIFICATION_FAILED;
    public static final int INTERNAL = ExitCode.INTERNAL;
    public static final int PARTIAL = ExitCode.PARTIAL;
    public static final int UNTRUSTED_ORIGIN = ExitCode.UNTRUSTED_ORIGIN;
    /** A command cancelled (Ctrl-C, SIGTERM): what a shell reports for a process that SIGINT ended. */
    public static final int INTERRUPTED = 130;

    /** The heading of the list in each command's help. */
    public static final String HEADING = "%nExit codes:%n";
    public static final String OK_HELP = "0:done: every block on disk and verified (or written, with --verify off)";
    public static final String TRANSFERRED_HELP = "0:done: the destination server verified every file on its disk";
    public static final String TRANSFER_UNVERIFIED_HELP = "3:the destination server could not verify every block (a relay"
            + " failed or lied); run the same command again";
    public static final String COLLECTED_HELP = "0:done: every file collected, every block on disk and verified";
    public static final String EVACUATED_HELP = "0:done: every block on --replicas relays; with --dry-run: the server,"
            + " the relays and the deadline can meet the evacuation as asked";
    public static final String FAILURE_HELP = "1:failure: connection, certificate, login, refused command, missing file,"
            + " a destination in use or in the way;"
            + " the message says which";
    public static final String USAGE_HELP = "2:usage: bad options or arguments";
    public static final String VERIFICATION_FAILED_HELP = "3:some block could not be verified from any source; rerun"
            + " the same command to resume from its journal";
    public static final String INTERNAL_HELP = "4:internal error: a bug; the message says where";
    public static final String PARTIAL_EVACUATE_HELP = "5:partial: the deadline came, some blocks found no relay or"
            + " have fewer than --replicas copies (the report names the files and the relays' reasons); with --dry-run:"
            + " the evacuation as asked cannot be met (the reasons, and what would fit, are named)";
    public static final String PARTIAL_COLLECT_HELP = "5:partial: the manifest does not hold every file whole (the"
            + " missing files are named); with --check: some file can no longer be collected whole";
    public static final String RELEASED_HELP = "0:done: every relay answered and holds none of the evacuation's blocks";
    public static final String PARTIAL_RELEASE_HELP = "5:partial: some relay could not be reached (named): it keeps its"
            + " blocks until 'fsp release' runs again once it is back (or --wait sees it back), or until the retention ends";
    public static final String UNTRUSTED_ORIGIN_HELP = "6:refused: the manifest is not signed by the trusted origin"
            + " (--trust-origin) or is not the evacuation expected (--expect-origin); nothing was written";

    @Override
    public int getExitCode(Throwable t) {
        return t instanceof CommandLine.ParameterException ? USAGE : ExitCode.of(t);
    }
}

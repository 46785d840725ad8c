package io.fsp.cli;

import java.io.PrintWriter;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * How a command prints its result ({@code --json}: as one JSON object) and how much it prints besides:
 * {@code --quiet} only errors and the final line (or JSON), no progress line and no notes; {@code --verbose} also
 * the client's milestones and debug log ({@code io.fsp.client}) on standard error. The two exclude each other.
 */
final class OutputOption {
    @Option(names = "--json", description = "Print the result as one JSON object.")
    boolean json;

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    Level level;

    static final class Level {
        @Option(names = {"-q", "--quiet"}, required = true, description = "Print only errors and the final line (or JSON).")
        boolean quiet;

        @Option(names = {"-v", "--verbose"}, required = true,
                description = "Also print the client's milestones and debug log on standard error.")
        boolean verbose;
    }

    /** The logger the client's debug lines go to; slf4j-simple reads its level when a logger is first made. */
    private static final String CLIENT_LOG_LEVEL = "org.slf4j.simpleLogger.log.io.fsp.client";

    boolean quiet() {
        return level != null && level.quiet;
    }

    boolean verbose() {
        return level != null && level.verbose;
    }

    /** With --verbose: the client's debug log on; to be called before the command makes its first client object. */
    void apply() {
        if (verbose()) {
            System.setProperty(CLIENT_LOG_LEVEL, "debug");
        }
    }

    /** A subcommand's work, given its output and error streams; returns its exit code. */
    interface Body {
        int run(PrintWriter out, PrintWriter err) throws Exception;
    }

    /** Runs {@code body} with this choice applied, and flushes both of the command's streams however it ends. */
    int run(CommandSpec spec, Body body) throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        apply();
        try {
            return body.run(out, err);
        } catch (InterruptedException e) {
            err.println(spec.qualifiedName() + ": interrupted");
            return ExitCodes.INTERRUPTED;
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** Whether to show the progress line: on a terminal, unless the output is JSON or --quiet. */
    boolean progress() {
        return !json && !quiet() && Invocation.current().terminal();
    }
}

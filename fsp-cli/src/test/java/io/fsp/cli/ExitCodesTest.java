package io.fsp.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** What an exception escaping a command of {@code fsp} means: only picocli's parameter errors are the user's fault. */
class ExitCodesTest {
    @Command(name = "probe")
    static final class Probe implements Callable<Integer> {
        @Option(names = "--n")
        int n;
        @Option(names = "--throw")
        String kind;

        @Override
        public Integer call() throws Exception {
            switch (kind == null ? "" : kind) {
                case "iae" -> throw new IllegalArgumentException("seq: -1 (expected: >= 0)"); // a bug, or a peer's bad data
                case "io" -> throw new IOException("connection refused");
                case "state" -> throw new IllegalStateException("bug");
                case "unchecked-io" -> throw new UncheckedIOException(new IOException("disk"));
                default -> {
                    return ExitCodes.OK;
                }
            }
        }
    }

    private static int run(String... args) {
        CommandLine cl = new CommandLine(new Probe()).setExitCodeExceptionMapper(new ExitCodes());
        cl.setErr(new java.io.PrintWriter(java.io.Writer.nullWriter()));
        return cl.execute(args);
    }

    @Test
    void parameterErrorsAreUsage() {
        assertEquals(ExitCodes.USAGE, run("--n", "many"));
        assertEquals(ExitCodes.USAGE, run("--unknown"));
        assertEquals(ExitCodes.OK, run("--n", "3"));
    }

    @Test
    void anIllegalArgumentFromInsideIsInternalNotUsage() {
        assertEquals(ExitCodes.INTERNAL, run("--throw", "iae"));
        assertEquals(ExitCodes.INTERNAL, run("--throw", "state"));
        assertEquals(ExitCodes.INTERNAL, run("--throw", "unchecked-io"));
    }

    @Test
    void ioIsFailure() {
        assertEquals(ExitCodes.FAILURE, run("--throw", "io"));
    }
}

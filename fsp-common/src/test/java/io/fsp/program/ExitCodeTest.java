package io.fsp.program;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** What an exception escaping a command means: only picocli's parameter errors are the user's fault. */
class ExitCodeTest {
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
                    return ExitCode.OK;
                }
            }
        }
    }

    private static int run(String... args) {
        CommandLine cl = new CommandLine(new Probe()).setExitCodeExceptionMapper(ExitCode.MAPPER);
        cl.setErr(new java.io.PrintWriter(java.io.Writer.nullWriter()));
        return cl.execute(args);
    }

    @Test
    void parameterErrorsAreUsage() {
        assertEquals(ExitCode.USAGE, run("--n", "many"));
        assertEquals(ExitCode.USAGE, run("--unknown"));
        assertEquals(ExitCode.OK, run("--n", "3"));
    }

    @Test
    void anIllegalArgumentFromInsideIsInternalNotUsage() {
        assertEquals(ExitCode.INTERNAL, run("--throw", "iae"));
        assertEquals(ExitCode.INTERNAL, run("--throw", "state"));
        assertEquals(ExitCode.INTERNAL, run("--throw", "unchecked-io"));
    }

    @Test
    void ioIsFailure() {
        assertEquals(ExitCode.FAILURE, run("--throw", "io"));
    }

    @Test
    void codesKeepTheirDocumentedNumbers() {
        assertEquals(0, ExitCode.OK);
        assertEquals(1, ExitCode.FAILURE);
        assertEquals(2, ExitCode.USAGE);
        assertEquals(3, ExitCode.VERIFICATION_FAILED);
        assertEquals(4, ExitCode.INTERNAL);
        assertEquals(5, ExitCode.PARTIAL);
        assertEquals(6, ExitCode.UNTRUSTED_ORIGIN);
    }
}

package io.fsp.program;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.junit.jupiter.api.Test;

/** What an exception escaping a command means: I/O is a failure, anything else a bug. */
class ExitCodeTest {
    @Test
    void anIllegalArgumentFromInsideIsInternalNotUsage() {
        assertEquals(ExitCode.INTERNAL, ExitCode.of(new IllegalArgumentException("seq: -1 (expected: >= 0)")));
        assertEquals(ExitCode.INTERNAL, ExitCode.of(new IllegalStateException("bug")));
        assertEquals(ExitCode.INTERNAL, ExitCode.of(new UncheckedIOException(new IOException("disk"))));
    }

    @Test
    void ioIsFailure() {
        assertEquals(ExitCode.FAILURE, ExitCode.of(new IOException("connection refused")));
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

package io.fsp.server.ftp.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fsp.server.ftp.FileRange;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of the checksum commands' argument grammars ({@link ChecksumArguments}): any
 * argument is parsed or refused with {@link IllegalArgumentException}, never anything else; what is parsed is a
 * valid range that reads back the same when written in the canonical form. {@code mvn verify} fuzzes it for a
 * bounded time (the {@code fuzz-checksum-arguments} execution in this module's pom); plain test runs replay
 * the inputs in {@code ChecksumArgumentsFuzzTestInputs}.
 */
class ChecksumArgumentsFuzzTest {
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    @FuzzTest(maxDuration = "5s")
    void parsesOrRefusesAnyArgument(FuzzedDataProvider data) {
        String argument = data.consumeRemainingAsString();
        try {
            ChecksumArguments.PathAndRange x = ChecksumArguments.xChecksum(argument);
            checkRange(x.range());
            if (!x.range().equals(FileRange.WHOLE)) {
                assertTrue(argument.startsWith("\""), "a range only after a quoted path: " + argument);
                assertFalse(x.path().isEmpty() || x.path().contains("\""), x.path());
                String again = "\"" + x.path() + "\" " + x.range().offset() + " " + (x.range().offset() + x.range().length());
                assertEquals(x, ChecksumArguments.xChecksum(again));
            }
        } catch (IllegalArgumentException refused) {
            assertTrue(argument.startsWith("\""), "an unquoted argument is a path: " + argument);
        }
        try {
            ChecksumArguments.Cksm c = ChecksumArguments.cksm(argument);
            checkRange(c.range());
            assertFalse(c.path().isEmpty());
            String again = c.algorithm().gridFtpName() + " " + c.range().offset() + " " + c.range().length() + " " + c.path();
            assertEquals(c, ChecksumArguments.cksm(again));
        } catch (IllegalArgumentException refused) {
            assertTrue(refused.getMessage() != null && refused.getMessage().contains("expected"), refused.getMessage());
        }
        try {
            Optional<FileRange> r = ChecksumArguments.rang(argument);
            r.ifPresent(range -> {
                checkRange(range);
                assertTrue(range.length() >= 1, "RANG covers at least one byte");
                assertEquals(r, ChecksumArguments.rang(range.offset() + " " + (range.offset() + range.length() - 1)));
            });
        } catch (IllegalArgumentException refused) {
            assertTrue(refused.getMessage() != null && refused.getMessage().contains("expected"), refused.getMessage());
        }
    }

    private static void checkRange(FileRange r) {
        assertTrue(r.offset() >= 0 && r.length() >= FileRange.TO_END, r.toString());
        if (r.length() != FileRange.TO_END) {
            assertTrue(r.offset() <= Long.MAX_VALUE - r.length(), r.toString());
        }
    }
}

package io.fsp.it.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Arrays;
import java.util.List;

/** One FTP reply: its code and every line as received. */
public record Reply(int code, List<String> lines) {
    public Reply {
        lines = List.copyOf(lines);
    }

    /** All lines joined with newlines. */
    public String text() {
        return String.join("\n", lines);
    }

    public Reply assertCode(int expected) {
        assertEquals(expected, code, () -> "reply to the last command: " + text());
        return this;
    }

    public Reply assertCodeIn(int... expected) {
        if (Arrays.stream(expected).noneMatch(c -> c == code)) {
            fail("reply code " + code + " (expected one of " + Arrays.toString(expected) + "): " + text());
        }
        return this;
    }

    public boolean isPositive() {
        return code >= 100 && code < 400;
    }

    @Override
    public String toString() {
        return text();
    }
}

package io.fsp.it.harness;

import java.time.LocalTime;

/** What a test did (commands, tool output, FTP dialogue), printed only when the test fails. */
public final class Transcript {
    private final StringBuffer text = new StringBuffer();

    public void add(String line) {
        text.append(LocalTime.now()).append(' ').append(line);
        if (!line.endsWith("\n")) {
            text.append('\n');
        }
    }

    public void clear() {
        text.setLength(0);
    }

    @Override
    public String toString() {
        return text.toString();
    }
}

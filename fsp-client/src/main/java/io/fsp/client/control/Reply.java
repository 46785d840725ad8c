package io.fsp.client.control;

import java.util.List;

/** One FTP reply: its code and its lines without the code prefix. */
public record Reply(int code, List<String> lines) {
    public Reply {
        lines = List.copyOf(lines);
    }

    /** The text of the last line (the whole text of a one-line reply). */
    public String text() {
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    }

    public boolean isPreliminary() {
        return code < 200;
    }

    public boolean isSuccess() {
        return code >= 200 && code < 400;
    }

    @Override
    public String toString() {
        return code + " " + String.join(" / ", lines);
    }
}

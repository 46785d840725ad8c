package io.fsp.server.ftp;

import io.fsp.ftp.ReplyCode;
import java.util.List;

/**
 * One reply: a code and one or more text lines. Several lines make a multi-line reply
 * ({@code 211-Features:} … {@code 211 End}); lines other than the first and last are sent as given, so
 * callers indent them (FEAT and STAT lines start with a space).
 */
public record FtpReply(ReplyCode code, List<String> lines) {
    public FtpReply {
        lines = List.copyOf(lines);
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("lines: empty (expected: at least one)");
        }
    }

    public FtpReply(ReplyCode code, String text) {
        this(code, List.of(text));
    }

    public boolean isPreliminary() {
        return code.isPreliminary();
    }

    @Override
    public String toString() {
        return lines.size() == 1 ? code + " " + lines.get(0) : code + " " + lines.get(0) + " (+" + (lines.size() - 1) + " lines)";
    }
}

package io.fsp.relay;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Commands and replies of an FTP control connection, for {@code fsp-relay join}: a reply's code and its last
 * line's text, multi-line replies (RFC 959 §4.2) folded; lines and replies bounded, since the server is not yet
 * trusted.
 */
final class ControlLines {
    private static final int MAX_LINE = 16 * 1024;
    private static final int MAX_LINES = 100;
    private InputStream in;
    private OutputStream out;

    record Reply(int code, String text) {
        @Override
        public String toString() {
            return code + " " + text;
        }
    }

    ControlLines(InputStream in, OutputStream out) {
        use(in, out);
    }

    /** Continues on other streams (after AUTH TLS: the TLS socket's). */
    void use(InputStream in, OutputStream out) {
        this.in = in;
        this.out = out;
    }

    void send(String line) throws IOException {
        out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    Reply read() throws IOException {
        String first = line();
        int code = code(first);
        String last = first;
        if (first.length() > 3 && first.charAt(3) == '-') {
            for (int n = 0; !(last.length() >= 4 && last.startsWith(first.substring(0, 3)) && last.charAt(3) == ' '); n++) {
                if (n > MAX_LINES) {
                    throw new IOException("a reply of more than " + MAX_LINES + " lines");
                }
                last = line();
            }
        }
        return new Reply(code, last.length() > 4 ? last.substring(4) : "");
    }

    private static int code(String line) throws IOException {
        if (line.length() < 3 || !line.substring(0, 3).chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IOException("not an FTP reply: '" + line + "'");
        }
        return Integer.parseInt(line.substring(0, 3));
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new EOFException("the server closed the connection");
            }
            if (c == '\n') {
                String s = b.toString(StandardCharsets.UTF_8);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            if (b.size() >= MAX_LINE) {
                throw new IOException("a reply line of more than " + MAX_LINE + " bytes");
            }
            b.write(c);
        }
    }
}

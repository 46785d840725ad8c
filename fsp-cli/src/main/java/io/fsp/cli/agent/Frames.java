package io.fsp.cli.agent;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The launcher-agent wire: frames of a type byte, a 4-byte length and at most {@link #MAX_PAYLOAD} bytes. The launcher
 * sends {@link #HELLO} (a {@link Request}), then {@link #ANSWER}/{@link #NO_ANSWER} to prompts and {@link #CANCEL};
 * the agent sends {@link #STDOUT}, {@link #STDERR}, {@link #PROMPT} and ends with {@link #EXIT} or {@link #DECLINE}
 * (run the command in-process). Writers are synchronized: a command's streams and its prompt share one socket.
 */
public final class Frames {
    public static final byte HELLO = 'H';
    public static final byte ANSWER = 'A';
    public static final byte NO_ANSWER = 'N';
    public static final byte CANCEL = 'C';
    public static final byte STDOUT = 'O';
    public static final byte STDERR = 'E';
    public static final byte PROMPT = 'P';
    public static final byte EXIT = 'X';
    public static final byte DECLINE = 'D';

    /** Larger than any argv, environment or chunk of output either side sends; a bigger frame is refused. */
    public static final int MAX_PAYLOAD = 1 << 20;

    /** One frame as read. */
    public record Frame(byte type, byte[] payload) {
        public String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }

        public int exitCode() throws IOException {
            if (payload.length != 4) {
                throw new IOException("exit frame of " + payload.length + " bytes (expected: 4)");
            }
            return ((payload[0] & 0xff) << 24) | ((payload[1] & 0xff) << 16) | ((payload[2] & 0xff) << 8) | (payload[3] & 0xff);
        }
    }

    private final DataInputStream in;
    private final DataOutputStream out;

    public Frames(InputStream in, OutputStream out) {
        this.in = new DataInputStream(new BufferedInputStream(in));
        this.out = new DataOutputStream(new BufferedOutputStream(out, 1 << 16));
    }

    /** The next frame; an EOFException at a clean end between frames. */
    public Frame read() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("the other side closed the connection");
        }
        int length = in.readInt();
        if (length < 0 || length > MAX_PAYLOAD) {
            throw new IOException("frame of " + Integer.toUnsignedString(length) + " bytes (at most " + MAX_PAYLOAD + ")");
        }
        byte[] payload = new byte[length];
        in.readFully(payload);
        return new Frame((byte) type, payload);
    }

    public synchronized void write(byte type, byte[] payload, int offset, int length) throws IOException {
        if (length > MAX_PAYLOAD) {
            write(type, payload, offset, MAX_PAYLOAD);
            write(type, payload, offset + MAX_PAYLOAD, length - MAX_PAYLOAD);
            return;
        }
        out.write(type);
        out.writeInt(length);
        out.write(payload, offset, length);
        out.flush();
    }

    public void write(byte type, byte[] payload) throws IOException {
        write(type, payload, 0, payload.length);
    }

    public void write(byte type, String text) throws IOException {
        write(type, text.getBytes(StandardCharsets.UTF_8));
    }

    public void writeExit(int code) throws IOException {
        write(EXIT, new byte[] {(byte) (code >>> 24), (byte) (code >>> 16), (byte) (code >>> 8), (byte) code});
    }

    /** An output stream whose every write becomes one frame of {@code type} (a command's stdout or stderr). */
    public OutputStream stream(byte type) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                if (len > 0) {
                    Frames.this.write(type, b, off, len);
                }
            }
        };
    }

    /** Strings and counts inside a payload, length-prefixed; reading checks every length against what is left. */
    static final class Payload {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final DataOutputStream data = new DataOutputStream(bytes);

        Payload putInt(int value) throws IOException {
            data.writeInt(value);
            return this;
        }

        Payload putString(String value) throws IOException {
            byte[] b = value.getBytes(StandardCharsets.UTF_8);
            data.writeInt(b.length);
            data.write(b);
            return this;
        }

        byte[] toBytes() {
            return bytes.toByteArray();
        }
    }

    /** Reads what a {@link Payload} wrote; every read checks its bounds. */
    static final class Reader {
        private final byte[] b;
        private int at;

        Reader(byte[] b) {
            this.b = b;
        }

        int getInt() throws IOException {
            if (b.length - at < 4) {
                throw new IOException("payload ends inside a number at byte " + at);
            }
            int v = ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
            at += 4;
            return v;
        }

        /** A count in 0..max. */
        int getCount(int max, String what) throws IOException {
            int n = getInt();
            if (n < 0 || n > max) {
                throw new IOException(what + ": " + n + " (expected: 0.." + max + ")");
            }
            return n;
        }

        String getString() throws IOException {
            int n = getInt();
            if (n < 0 || n > b.length - at) {
                throw new IOException("string of " + n + " bytes where " + (b.length - at) + " are left");
            }
            String s = new String(b, at, n, StandardCharsets.UTF_8);
            at += n;
            return s;
        }

        void end() throws IOException {
            if (at != b.length) {
                throw new IOException((b.length - at) + " bytes after the end of the payload");
            }
        }
    }
}

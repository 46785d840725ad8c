package io.fsp.server.ftp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Splits the control stream into lines and decodes each into an {@link FtpRequest}, enforcing the line
 * limit (RFC 959 §4.1.3 has none; the limit is configured). A line that is too long, not strict UTF-8
 * (RFC 2640), or has no verb becomes a {@link MalformedRequest} in its place in the stream, so replies stay
 * in order. A too-long line is answered once and the rest of it is discarded without being buffered.
 *
 * <p>Telnet commands (RFC 854) that clients put before ABOR ({@code IAC IP IAC DM}) are removed.
 *
 * <p>Nothing after an {@code AUTH} line is decoded until that command is answered ({@link #authAnswered}):
 * once it has switched the connection to TLS, what came behind it in clear was sent before the handshake and must
 * never count as a command of the secured session (the STARTTLS command injection of CVE-2011-0411).
 */
public final class FtpRequestDecoder extends ByteToMessageDecoder {
    private static final int MAX_VERB_LENGTH = 16;
    private static final byte IAC = (byte) 0xFF;

    private enum State { READ_LINE, DISCARD_LINE }

    private final int maxLineLength;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    private State state = State.READ_LINE;
    /** An AUTH line was passed on and is not answered yet: what follows it stays undecoded. */
    private boolean heldAtAuth;
    private ChannelHandlerContext ctx;

    /** @param maxLineLength longest accepted line in bytes, without its CRLF */
    public FtpRequestDecoder(int maxLineLength) {
        if (maxLineLength < 64) {
            throw new IllegalArgumentException("maxLineLength: " + maxLineLength + " (expected: >= 64)");
        }
        this.maxLineLength = maxLineLength;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    /** Whether decoding waits for an AUTH command's answer (reading should stop meanwhile). */
    boolean heldAtAuth() {
        return heldAtAuth;
    }

    /**
     * The AUTH command that stopped decoding is answered. If it started TLS, returns how many bytes were already
     * buffered behind it in clear and drops them (the caller must not go on with a peer that sent any); otherwise
     * decoding goes on with them and this returns 0.
     */
    int authAnswered(boolean tlsStarted) {
        heldAtAuth = false;
        ByteBuf buffered = internalBuffer();
        if (tlsStarted) {
            int clear = buffered.readableBytes();
            buffered.skipBytes(clear);
            state = State.READ_LINE;
            return clear;
        }
        if (buffered.isReadable()) {
            // Answered later than read (it waited behind another command): decode what waited, in a task of its own.
            ctx.executor().execute(() -> {
                if (!ctx.isRemoved()) {
                    try {
                        channelRead(ctx, Unpooled.EMPTY_BUFFER);
                    } catch (Exception e) {
                        ctx.fireExceptionCaught(e);
                    }
                }
            });
        }
        return 0;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.isReadable() && !heldAtAuth) {
            // Look no further than a maximal line plus its CRLF.
            int searchLength = Math.min(in.readableBytes(), maxLineLength + 2);
            int eol = in.indexOf(in.readerIndex(), in.readerIndex() + searchLength, (byte) '\n');
            if (state == State.DISCARD_LINE) {
                if (eol < 0) {
                    in.skipBytes(searchLength);
                    continue;
                }
                in.readerIndex(eol + 1);
                state = State.READ_LINE;
                continue;
            }
            if (eol < 0) {
                if (in.readableBytes() > maxLineLength + 1) {
                    // Too long already: drop what was searched, then discard up to the line's end.
                    in.skipBytes(searchLength);
                    state = State.DISCARD_LINE;
                    out.add(tooLong());
                    continue;
                }
                return; // wait for the rest of the line
            }
            int length = eol - in.readerIndex();
            if (length > 0 && in.getByte(eol - 1) == '\r') {
                length--;
            }
            if (length > maxLineLength) {
                in.readerIndex(eol + 1);
                out.add(tooLong());
                continue;
            }
            byte[] line = new byte[length];
            in.readBytes(line);
            in.readerIndex(eol + 1);
            FtpRequestLine request = parse(line);
            heldAtAuth = request instanceof FtpRequest r && r.verb().equals("AUTH");
            out.add(request);
        }
    }

    /** Bytes held back waiting for the rest of a line (for tests: at most one line's worth). */
    int bufferedBytes() {
        return actualReadableBytes();
    }

    private MalformedRequest tooLong() {
        return new MalformedRequest(Replies.syntaxError("line length: more than " + maxLineLength
                + " bytes (expected: <= " + maxLineLength + ")"));
    }

    private FtpRequestLine parse(byte[] raw) {
        byte[] line = stripTelnet(raw);
        String text;
        try {
            CharBuffer chars = utf8.reset().decode(ByteBuffer.wrap(line));
            text = chars.toString();
        } catch (CharacterCodingException e) {
            return new MalformedRequest(Replies.badArguments("command line is not valid UTF-8"));
        }
        int space = text.indexOf(' ');
        String verb = space < 0 ? text : text.substring(0, space);
        String argument = space < 0 ? "" : text.substring(space + 1);
        if (!isVerb(verb)) {
            return new MalformedRequest(Replies.syntaxError("syntax error: '" + abbreviate(verb)
                    + "' is not a command (expected: a letter, then letters or digits)"));
        }
        if (argument.chars().anyMatch(c -> c == 0 || c == '\r')) {
            return new MalformedRequest(Replies.badArguments("argument contains NUL or CR"));
        }
        return new FtpRequest(verb, argument);
    }

    /** An ASCII letter, then ASCII letters or digits (XSHA256, XSHA512), at most {@value #MAX_VERB_LENGTH}. */
    private static boolean isVerb(String verb) {
        if (verb.isEmpty() || verb.length() > MAX_VERB_LENGTH || !isAsciiLetter(verb.charAt(0))) {
            return false;
        }
        return verb.chars().allMatch(c -> isAsciiLetter(c) || (c >= '0' && c <= '9'));
    }

    private static boolean isAsciiLetter(int c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    }

    private static String abbreviate(String s) {
        String printable = s.replaceAll("\\p{Cntrl}", "?");
        return printable.length() > 20 ? printable.substring(0, 20) + "..." : printable;
    }

    /**
     * Removes Telnet command sequences: {@code IAC x} for x >= 0xF0, and a lone IAC whose urgent partner
     * byte the kernel took out of the stream (TCP urgent data, as ftplib and Commons Net send before ABOR).
     */
    static byte[] stripTelnet(byte[] line) {
        int first = indexOfIac(line);
        if (first < 0) {
            return line;
        }
        byte[] out = new byte[line.length];
        int n = 0;
        for (int i = 0; i < line.length; i++) {
            if (line[i] == IAC) {
                if (i + 1 < line.length && line[i + 1] == IAC) {
                    out[n++] = IAC; // an escaped 0xFF data byte
                    i++;
                } else if (i + 1 < line.length && (line[i + 1] & 0xFF) >= 0xF0) {
                    i++;
                }
                continue;
            }
            out[n++] = line[i];
        }
        return java.util.Arrays.copyOf(out, n);
    }

    private static int indexOfIac(byte[] line) {
        for (int i = 0; i < line.length; i++) {
            if (line[i] == IAC) {
                return i;
            }
        }
        return -1;
    }
}

package io.fsp.server.ftp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fsp.ftp.ReplyCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of the request decoder against docs/protocol.md §1.1: arbitrary bytes, cut into
 * arbitrary pieces, give exactly one answer per line (a request or a 500/501 for a malformed one) plus one for
 * an over-long line not ended yet, the same answers however the stream is cut, never more than one line
 * buffered (except behind an {@code AUTH} not answered yet), every input buffer released, and requests that read
 * back the same when sent again.
 * {@code mvn verify} fuzzes it for a bounded time (the {@code fuzz} execution in this module's pom); plain test
 * runs replay the inputs in {@code FtpRequestDecoderFuzzTestInputs}.
 */
class FtpRequestDecoderFuzzTest {
    private static final int LIMIT = 128;
    private static final Pattern VERB = Pattern.compile("[A-Z][A-Z0-9]{0,15}");

    // Jazzer turns the JUnit timeout into libFuzzer's per-input limit; it also bounds the whole run.
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @FuzzTest(maxDuration = "5s")
    void neverFailsOnArbitraryInput(FuzzedDataProvider data) {
        List<byte[]> pieces = new ArrayList<>();
        ByteArrayOutputStream whole = new ByteArrayOutputStream();
        while (data.remainingBytes() > 0) {
            byte[] piece = data.consumeBytes(data.consumeInt(1, 300));
            if (piece.length == 0) {
                break; // the input ended (an empty wrapped buffer is a shared one that is never released)
            }
            pieces.add(piece);
            whole.writeBytes(piece);
        }
        byte[] stream = whole.toByteArray();

        FtpRequestDecoder decoder = new FtpRequestDecoder(LIMIT);
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        List<ByteBuf> fed = new ArrayList<>();
        List<Object> answers = new ArrayList<>();
        for (byte[] piece : pieces) {
            ByteBuf buf = Unpooled.wrappedBuffer(piece);
            fed.add(buf);
            ch.writeInbound(buf);
            // Behind an AUTH not answered yet the decoder holds what came (the handler stops reading meanwhile).
            assertTrue(decoder.heldAtAuth() || decoder.bufferedBytes() <= LIMIT + 1, "buffers at most one line and its CR");
            answers.addAll(drain(ch, decoder));
            assertTrue(decoder.bufferedBytes() <= LIMIT + 1, "buffers at most one line and its CR once AUTH is answered");
        }
        ch.finishAndReleaseAll();
        fed.forEach(b -> assertEquals(0, b.refCnt(), "input buffer released"));

        // One answer per line, and one for an over-long line whose end has not come.
        int lineEnds = 0;
        int lastEnd = -1;
        for (int i = 0; i < stream.length; i++) {
            if (stream[i] == '\n') {
                lineEnds++;
                lastEnd = i;
            }
        }
        int pending = stream.length - lastEnd - 1;
        assertEquals(lineEnds + (pending > LIMIT + 1 ? 1 : 0), answers.size(), "answers");

        // The same answers however the stream is cut.
        FtpRequestDecoder onceDecoder = new FtpRequestDecoder(LIMIT);
        EmbeddedChannel once = new EmbeddedChannel(onceDecoder);
        once.writeInbound(Unpooled.wrappedBuffer(stream));
        assertEquals(answers, drain(once, onceDecoder));
        once.finishAndReleaseAll();

        // Requests sent again read back the same; malformed lines get one reply line each.
        ByteArrayOutputStream again = new ByteArrayOutputStream();
        List<FtpRequest> requests = new ArrayList<>();
        EmbeddedChannel encoder = new EmbeddedChannel(new FtpReplyEncoder());
        for (Object answer : answers) {
            if (answer instanceof FtpRequest r) {
                assertTrue(VERB.matcher(r.verb()).matches(), r.verb());
                assertTrue(r.argument().chars().noneMatch(c -> c == 0 || c == '\r' || c == '\n'), "argument: control characters");
                byte[] line = (r.hasArgument() ? r.verb() + " " + r.argument() : r.verb()).getBytes(StandardCharsets.UTF_8);
                assertTrue(line.length <= LIMIT, "within the line limit");
                again.writeBytes(line);
                again.writeBytes(new byte[] {'\r', '\n'});
                requests.add(r);
            } else {
                FtpReply reply = ((MalformedRequest) answer).reply();
                assertTrue(reply.code() == ReplyCode.SYNTAX_ERROR || reply.code() == ReplyCode.SYNTAX_ERROR_IN_ARGUMENTS,
                        reply.toString());
                encoder.writeOutbound(reply);
                ByteBuf encoded = encoder.readOutbound();
                String text = encoded.toString(StandardCharsets.UTF_8);
                encoded.release();
                assertEquals(text.indexOf("\r\n") + 2, text.length(), "one reply line: " + text);
            }
        }
        encoder.finishAndReleaseAll();
        FtpRequestDecoder resentDecoder = new FtpRequestDecoder(LIMIT);
        EmbeddedChannel resent = new EmbeddedChannel(resentDecoder);
        resent.writeInbound(Unpooled.wrappedBuffer(again.toByteArray()));
        assertEquals(requests, drain(resent, resentDecoder));
        resent.finishAndReleaseAll();
    }

    /** What the decoder passed on, each AUTH answered as the control handler does (refused: no TLS here). */
    private static List<Object> drain(EmbeddedChannel ch, FtpRequestDecoder decoder) {
        List<Object> out = new ArrayList<>();
        boolean more = true;
        while (more) {
            more = false;
            for (Object o; (o = ch.readInbound()) != null; ) {
                assertTrue(o instanceof FtpRequest || o instanceof MalformedRequest, o.getClass().getName());
                out.add(o);
            }
            if (decoder.heldAtAuth()) {
                assertEquals(0, decoder.authAnswered(false), "nothing dropped when AUTH did not start TLS");
                ch.runPendingTasks();
                more = true;
            }
        }
        return out;
    }
}

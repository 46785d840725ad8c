package io.fsp.server.ftp;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

/**
 * Feeds arbitrary bytes, cut into arbitrary pieces, to the request decoder: it must never throw, never
 * emit anything but requests and malformed-line answers, never buffer more than one line, and never leak.
 * {@code mvn test} replays the stored inputs; {@code JAZZER_FUZZ=1 mvn test -Dtest=FtpRequestDecoderFuzzTest}
 * searches for new ones.
 */
class FtpRequestDecoderFuzzTest {
    private static final int LIMIT = 128;

    @FuzzTest(maxDuration = "30s")
    void neverFailsOnArbitraryInput(FuzzedDataProvider data) {
        FtpRequestDecoder decoder = new FtpRequestDecoder(LIMIT);
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        long lineEnds = 0;
        while (data.remainingBytes() > 0) {
            byte[] piece = data.consumeBytes(data.consumeInt(1, 300));
            for (byte b : piece) {
                if (b == '\n') {
                    lineEnds++;
                }
            }
            ch.writeInbound(Unpooled.wrappedBuffer(piece));
            assertTrue(decoder.bufferedBytes() <= LIMIT + 2, "buffers at most one line");
        }
        long outputs = 0;
        for (Object o; (o = ch.readInbound()) != null; outputs++) {
            assertTrue(o instanceof FtpRequest || o instanceof MalformedRequest, o.getClass().getName());
            if (o instanceof FtpRequest r) {
                assertFalse(r.verb().isEmpty());
                assertTrue(r.argument().indexOf('\0') < 0 && r.argument().indexOf('\r') < 0);
            }
        }
        // One answer per line, plus at most one per over-long stretch that has not ended yet.
        assertTrue(outputs <= lineEnds + 1, outputs + " outputs for " + lineEnds + " lines");
        ch.finishAndReleaseAll();
    }
}

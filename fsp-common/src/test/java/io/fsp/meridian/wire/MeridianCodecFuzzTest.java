package io.fsp.meridian.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of the Meridian datagram decoder (docs/protocol.md §4): any bytes either decode into
 * a message, consuming the whole datagram, or are refused with a {@link MeridianFormatException} (anything else
 * thrown is a finding); a decoded message encodes again, with the cookie it came with, and decodes to an equal
 * message and cookie; and decoding
 * allocates in proportion to the datagram, not to counts it claims. {@code mvn verify} fuzzes it for a bounded
 * time; plain test runs replay the inputs in {@code MeridianCodecFuzzTestInputs}.
 */
class MeridianCodecFuzzTest {
    /** Byte 0 of an input picks one; the rest is the datagram. */
    private static final MeridianCodec[] CODECS = {
            new MeridianCodec(WireLimits.DEFAULT), new MeridianCodec(new WireLimits(64, 2, 1))};
    /** Heap a decode may take: fixed overhead (an exception's stack trace) plus this much per datagram byte. */
    private static final long FIXED_ALLOCATION = 256 * 1024;
    private static final long ALLOCATION_PER_BYTE = 256;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    // Jazzer turns the JUnit timeout into libFuzzer's per-input limit; it also bounds the whole run.
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @FuzzTest(maxDuration = "5s")
    void decodeRefusesOrRoundTrips(byte[] input) {
        if (input.length < 1) {
            return;
        }
        MeridianCodec codec = CODECS[(input[0] & 0xff) % CODECS.length];
        byte[] datagram = Arrays.copyOfRange(input, 1, input.length);
        MeridianCodec.Datagram message;
        try {
            message = decode(codec, datagram);
        } catch (MeridianFormatException refused) {
            message = null;
        }
        // Measured on a second decode of the same bytes, once classes are loaded and code is compiled.
        long before = THREADS.getCurrentThreadAllocatedBytes();
        try {
            decode(codec, datagram);
        } catch (MeridianFormatException refused) {
            // as the first time
        }
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated <= FIXED_ALLOCATION + ALLOCATION_PER_BYTE * datagram.length,
                allocated + " bytes allocated to decode " + datagram.length);
        if (message == null) {
            return;
        }

        ByteBuf again = codec.encode(message.message(), message.cookie(), UnpooledByteBufAllocator.DEFAULT);
        try {
            assertTrue(again.readableBytes() <= datagram.length, "encodes no longer than it came");
            assertEquals(message, codec.decodeDatagram(again));
        } finally {
            again.release();
        }
    }

    /** Decodes the whole datagram or throws. */
    private static MeridianCodec.Datagram decode(MeridianCodec codec, byte[] datagram) {
        ByteBuf in = Unpooled.wrappedBuffer(datagram);
        try {
            MeridianCodec.Datagram message = codec.decodeDatagram(in);
            assertEquals(0, in.readableBytes(), "datagram consumed");
            return message;
        } finally {
            in.release();
        }
    }
}

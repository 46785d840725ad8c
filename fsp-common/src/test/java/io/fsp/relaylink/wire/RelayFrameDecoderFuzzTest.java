package io.fsp.relaylink.wire;

import static org.junit.jupiter.api.Assertions.assertNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.util.Arrays;

/**
 * Coverage-guided fuzzing of the relay frame decoder: any exception other than a {@link DecoderException},
 * a hang, or an allocation beyond the frame limits is a finding. Decoded messages are encoded again, which
 * must always work; with the first byte's bit 1 set, as a clear link's decoder (tagged frames). {@code mvn verify} fuzzes for a bounded time; plain test runs replay stored inputs.
 */
class RelayFrameDecoderFuzzTest {
    private static final RelayLimits LIMITS = new RelayLimits(128 * 1024);
    private static final byte[] SECRET = new byte[ClearLink.SECRET_LENGTH];

    /** Allocates like Unpooled, but records any request larger than a frame can be under LIMITS. */
    private static final class BoundedAllocator extends AbstractByteBufAllocator {
        private final int bound;
        private String violation;

        BoundedAllocator(int bound) {
            super(false);
            this.bound = bound;
        }

        private void check(int capacity) {
            if (capacity > bound && violation == null) {
                violation = "allocation of " + capacity + " bytes (expected: <= " + bound + ")";
            }
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            check(initialCapacity);
            return UnpooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            check(initialCapacity);
            return UnpooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }
    }

    @FuzzTest(maxDuration = "5s")
    void decoderNeverCrashesHangsOrOverAllocates(byte[] input) {
        if (input.length < 2) {
            return;
        }
        boolean acceptBlocks = (input[0] & 1) != 0;
        ClearLink.FrameTags tags = (input[0] & 2) != 0 ? ClearLink.toRelay(SECRET) : null; // a clear link's frames
        byte[] stream = Arrays.copyOfRange(input, 2, input.length);
        int split = stream.length == 0 ? 0 : (input[1] & 0xff) % (stream.length + 1);
        BoundedAllocator alloc = new BoundedAllocator(
                Math.max(5 + 20 + LIMITS.maxBlockBytes(), RelayLimits.MAX_CONTROL_BODY) + input.length * 2);
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(alloc);
        ch.pipeline().addLast(new RelayFrameDecoder(LIMITS, acceptBlocks, tags));
        feed(ch, ch.alloc().buffer(split).writeBytes(stream, 0, split));
        feed(ch, ch.alloc().buffer(stream.length - split).writeBytes(stream, split, stream.length - split));
        EmbeddedChannel encoder = new EmbeddedChannel(new RelayFrameEncoder());
        for (Object m; (m = ch.readInbound()) != null; ) {
            encoder.writeOutbound(m); // every decoded frame encodes again
        }
        encoder.finishAndReleaseAll();
        try {
            ch.finish();
        } catch (DecoderException expected) {
            // stream ended inside a frame
        }
        ch.releaseInbound();
        assertNull(alloc.violation);
    }

    private static void feed(EmbeddedChannel ch, ByteBuf part) {
        try {
            ch.writeInbound(part);
        } catch (DecoderException expected) {
            // malformed input is refused; the decoder then drops the rest of the stream
        }
    }
}

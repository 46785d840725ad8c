package io.fsp.block;

import static org.junit.jupiter.api.Assertions.assertNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fsp.block.stage.BlockPipeline;
import io.fsp.crypto.TransferKey;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of the block decoder and the receiver pipeline behind it. {@code mvn verify} runs
 * it in fuzzing mode for a bounded time (the {@code fuzz} surefire execution sets JAZZER_FUZZ); plain test
 * runs replay the inputs in {@code BlockDecoderFuzzTestInputs}. Any exception other than a
 * {@link DecoderException}, a hang, or an allocation larger than the limits allow is a finding.
 */
class BlockDecoderFuzzTest {
    private static final BlockLimits LIMITS = new BlockLimits(64 * 1024, 256);
    private static final byte[] KEY = new byte[16];

    /** Allocates like Unpooled, but records any request larger than a block can be under LIMITS. */
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

    // Jazzer turns the JUnit timeout into libFuzzer's per-input limit, so a hanging input fails within it;
    // it also bounds the whole 20 s run, hence the margin.
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @FuzzTest(maxDuration = "10s")
    void decoderNeverCrashesHangsOrOverAllocates(byte[] input) {
        if (input.length < 2) {
            return;
        }
        // Byte 0 picks options, byte 1 a split point; the rest is the stream.
        boolean verifyChecksum = (input[0] & 1) != 0;
        byte[] stream = Arrays.copyOfRange(input, 2, input.length);
        int split = stream.length == 0 ? 0 : (input[1] & 0xff) % (stream.length + 1);

        BoundedAllocator alloc = new BoundedAllocator(Math.max(LIMITS.maxBlockLength(), input.length * 2));
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(alloc);
        ch.pipeline().addLast(new BlockDecoder(LIMITS, verifyChecksum));
        try (BlockPipeline clear = BlockPipeline.builder().allocator(alloc).limits(LIMITS).transferId(0).build();
             BlockPipeline sealed = BlockPipeline.builder().allocator(alloc).limits(LIMITS)
                     .encryption(TransferKey.of(0, KEY)).build()) {
            feed(ch, ch.alloc().buffer(split).writeBytes(stream, 0, split));
            feed(ch, ch.alloc().buffer(stream.length - split).writeBytes(stream, split, stream.length - split));
            for (Block b; (b = ch.readInbound()) != null; ) {
                try {
                    // Skip the checksum so the fuzzer reaches decryption, descriptors and decompression.
                    Block trusted = b.asVerified();
                    (trusted.header().flags().isEncrypted() ? sealed : clear).open(trusted).release();
                } catch (DecoderException expected) {
                    // a refused block is the right answer to most inputs
                } finally {
                    b.release();
                }
            }
            try {
                ch.finish();
            } catch (DecoderException expected) {
                // stream ended inside a block
            }
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

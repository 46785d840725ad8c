package io.fsp.checksum;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The contract every {@link Hasher} keeps, checked for every algorithm (each one reaches its implementation
 * through {@link ChecksumAlgorithm#newHasher()}): the kind of buffer does not change the value, no buffer is
 * moved, and feeding in pieces gives what feeding at once gives.
 */
class HasherContractTest {
    private static final int SIZE = 70_001; // more than Blake3Hasher's scratch, and odd

    private static byte[] bytes() {
        byte[] b = new byte[SIZE];
        new Random(11).nextBytes(b);
        return b;
    }

    /** The same content in each kind of NIO buffer, each with its position and limit around the content. */
    private static Map<String, ByteBuffer> nioBuffers(byte[] content) {
        byte[] padded = new byte[content.length + 20];
        System.arraycopy(content, 0, padded, 7, content.length);
        ByteBuffer direct = ByteBuffer.allocateDirect(padded.length).put(padded).clear();
        return Map.of(
                "heap", ByteBuffer.wrap(content.clone()),
                "heap, position and limit inside", ByteBuffer.wrap(padded.clone()).position(7).limit(7 + content.length),
                "heap slice", ByteBuffer.wrap(padded.clone()).position(3).slice().position(4).limit(4 + content.length),
                "read-only heap", ByteBuffer.wrap(padded.clone()).asReadOnlyBuffer().position(7).limit(7 + content.length),
                "direct", direct.duplicate().position(7).limit(7 + content.length),
                "direct slice", direct.duplicate().position(5).slice().position(2).limit(2 + content.length));
    }

    private static Map<String, ByteBuf> nettyBuffers(byte[] content) {
        byte[] padded = new byte[content.length + 20];
        System.arraycopy(content, 0, padded, 7, content.length);
        return Map.of(
                "heap", Unpooled.wrappedBuffer(content.clone()),
                "heap, indices inside", Unpooled.wrappedBuffer(padded.clone()).setIndex(7, 7 + content.length),
                "direct", Unpooled.directBuffer(padded.length).writeBytes(padded).setIndex(7, 7 + content.length),
                "direct slice", Unpooled.directBuffer(padded.length).writeBytes(padded).slice(5, content.length + 10)
                        .setIndex(2, 2 + content.length));
    }

    @ParameterizedTest
    @EnumSource(ChecksumAlgorithm.class)
    void everyNioBufferGivesTheArraysValueAndStaysWhereItWas(ChecksumAlgorithm algorithm) {
        byte[] content = bytes();
        Digest expected = algorithm.newHasher().update(content).finish();
        Hasher h = algorithm.newHasher();
        nioBuffers(content).forEach((kind, buf) -> {
            int position = buf.position();
            int limit = buf.limit();
            assertEquals(expected, h.update(buf).finish(), kind);
            assertEquals(position, buf.position(), kind + ": position");
            assertEquals(limit, buf.limit(), kind + ": limit");
        });
    }

    @ParameterizedTest
    @EnumSource(ChecksumAlgorithm.class)
    void everyNettyBufferGivesTheArraysValueAndStaysWhereItWas(ChecksumAlgorithm algorithm) {
        byte[] content = bytes();
        Digest expected = algorithm.newHasher().update(content).finish();
        Hasher h = algorithm.newHasher();
        nettyBuffers(content).forEach((kind, buf) -> {
            try {
                int reader = buf.readerIndex();
                int writer = buf.writerIndex();
                assertEquals(expected, h.update(buf).finish(), kind);
                assertEquals(reader, buf.readerIndex(), kind + ": reader index");
                assertEquals(writer, buf.writerIndex(), kind + ": writer index");
            } finally {
                buf.release();
            }
        });
    }

    @ParameterizedTest
    @EnumSource(ChecksumAlgorithm.class)
    void piecesOfAnyKindGiveTheOneShotValue(ChecksumAlgorithm algorithm) {
        byte[] content = bytes();
        Digest oneShot = algorithm.newHasher().update(content).finish();
        List<Function<byte[], ByteBuffer>> kinds = List.of(
                ByteBuffer::wrap,
                b -> ByteBuffer.allocateDirect(b.length).put(b).flip(),
                b -> ByteBuffer.wrap(b).asReadOnlyBuffer());
        Random random = new Random(3);
        Hasher h = algorithm.newHasher();
        int at = 0;
        for (int piece = 0; at < content.length; piece++) {
            int n = Math.min(content.length - at, random.nextInt(20_000));
            byte[] part = java.util.Arrays.copyOfRange(content, at, at + n);
            switch (piece % 5) {
                case 0 -> h.update(content, at, n);
                case 1 -> h.update(Unpooled.wrappedBuffer(part));
                default -> h.update(kinds.get(piece % 5 - 2).apply(part));
            }
            at += n;
        }
        assertEquals(oneShot, h.finish());
        assertEquals(oneShot, h.update(ByteBuffer.allocate(0)).update(content).finish(), "finish started over");
    }
}

package io.fsp.block;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.block.stage.BlockPipeline;
import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.crypto.TransferKey;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class BlockDecoderTest {
    private static final BlockLimits LIMITS = new BlockLimits(64 * 1024, 256);
    private static final long TRANSFER = 0xabcdefL;

    /** Four blocks of every kind, back to back, as one stream. */
    private static List<byte[]> sampleBlocks() {
        List<byte[]> blocks = new ArrayList<>();
        try (BlockPipeline clear = BlockPipeline.builder().transferId(TRANSFER).compression(1).build();
             BlockPipeline sealed = BlockPipeline.builder().encryption(TransferKey.of(TRANSFER, new byte[16])).build()) {
            ByteBuf data = Unpooled.wrappedBuffer(TestData.text(300, 1));
            for (BlockPipeline p : List.of(clear, sealed)) {
                Block b = p.seal(data, 600, "logs/a.log", true).block();
                blocks.add(ByteBufUtil.getBytes(b.content()));
                b.release();
            }
            data.release();
        }
        for (Block b : List.of(ControlBlocks.rttProbe(ByteBufAllocator.DEFAULT, ChecksumAlgorithm.CRC32C, TRANSFER, 7, 4 << 20),
                ControlBlocks.rttAck(ByteBufAllocator.DEFAULT, ChecksumAlgorithm.SHA1, TRANSFER, 7, ControlBlocks.NO_BUFFER_SIZE))) {
            blocks.add(ByteBufUtil.getBytes(b.content()));
            b.release();
        }
        return blocks;
    }

    private static byte[] concat(List<byte[]> parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        parts.forEach(out::writeBytes);
        return out.toByteArray();
    }

    private static List<byte[]> drain(EmbeddedChannel ch) {
        List<byte[]> got = new ArrayList<>();
        for (Block b; (b = ch.readInbound()) != null; ) {
            got.add(ByteBufUtil.getBytes(b.content()));
            b.release();
        }
        return got;
    }

    @Test
    void decodesAStreamSplitAtEveryByteOffset() {
        List<byte[]> blocks = sampleBlocks();
        byte[] stream = concat(blocks);
        for (int split = 0; split <= stream.length; split++) {
            EmbeddedChannel ch = new EmbeddedChannel(new BlockDecoder(LIMITS));
            ch.writeInbound(Unpooled.wrappedBuffer(stream, 0, split));
            ch.writeInbound(Unpooled.wrappedBuffer(stream, split, stream.length - split));
            List<byte[]> got = drain(ch);
            assertEquals(blocks.size(), got.size(), "split at " + split);
            for (int i = 0; i < blocks.size(); i++) {
                assertArrayEquals(blocks.get(i), got.get(i), "block " + i + ", split at " + split);
            }
            assertFalse(ch.finish());
        }
    }

    @Test
    void decodesAStreamFedOneByteAtATime() {
        List<byte[]> blocks = sampleBlocks();
        byte[] stream = concat(blocks);
        EmbeddedChannel ch = new EmbeddedChannel(new BlockDecoder(LIMITS));
        for (byte b : stream) {
            ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
        }
        assertEquals(blocks.size(), drain(ch).size());
        assertFalse(ch.finish());
    }

    @Test
    void relayForwardsABlockByteForByteWithoutReencoding() {
        byte[] block = sampleBlocks().get(1);
        EmbeddedChannel in = new EmbeddedChannel(new BlockDecoder(LIMITS));
        EmbeddedChannel out = new EmbeddedChannel(BlockEncoder.INSTANCE);
        in.writeInbound(Unpooled.wrappedBuffer(block));
        Block received = in.readInbound();
        assertTrue(received.checksumVerified());
        assertTrue(received.header().flags().isEncrypted());
        assertNull(received.header().descriptor(), "a relay sees no name or offset of an encrypted block");
        out.writeOutbound(received);
        ByteBuf sent = out.readOutbound();
        assertArrayEquals(block, ByteBufUtil.getBytes(sent));
        sent.release();
        assertFalse(in.finish());
        assertFalse(out.finish());
    }

    @Test
    void carriesDrsProbesAndAcknowledgements() {
        EmbeddedChannel ch = new EmbeddedChannel(new BlockDecoder(LIMITS));
        List<byte[]> blocks = sampleBlocks();
        ch.writeInbound(Unpooled.wrappedBuffer(blocks.get(2)), Unpooled.wrappedBuffer(blocks.get(3)));
        Block probe = ch.readInbound();
        Block ack = ch.readInbound();
        assertTrue(probe.header().flags().isRttProbe());
        assertEquals(7, probe.header().sequence());
        assertEquals(4 << 20, ControlBlocks.bufferSize(probe));
        assertTrue(ack.header().flags().isRttAck());
        assertEquals(ControlBlocks.NO_BUFFER_SIZE, ControlBlocks.bufferSize(ack));
        assertEquals(BlockHeader.FIXED_LENGTH + 20, ack.content().readableBytes(), "an ack is a bare header and its SHA-1");
        probe.release();
        ack.release();
        assertFalse(ch.finish());
    }

    // ---- malformed input ---------------------------------------------------------------------------------

    /** A clear data block built field by field, so each test can lie in one field. */
    private static final class Raw {
        int version = 1;
        int checksum = ChecksumAlgorithm.CRC32C.id();
        int flags = BlockFlags.DATA;
        Integer headerLength;
        Long payloadLength;
        long sequence = 3;
        long offset = 0;
        Long dataLength;
        byte[] name = "f.txt".getBytes(StandardCharsets.UTF_8);
        Integer nameLength;
        byte[] payload = "hello".getBytes(StandardCharsets.UTF_8);
        boolean descriptor = true;
        boolean badChecksum;

        byte[] bytes() {
            ByteBuf b = Unpooled.buffer();
            int desc = descriptor ? BlockDescriptor.FIXED_LENGTH + name.length : 0;
            b.writeByte(version).writeByte(checksum).writeShort(flags)
                    .writeShort(headerLength != null ? headerLength : BlockHeader.FIXED_LENGTH + desc)
                    .writeInt((int) (long) (payloadLength != null ? payloadLength : payload.length))
                    .writeLong(TRANSFER).writeInt((int) sequence);
            if (descriptor) {
                b.writeLong(offset).writeInt((int) (long) (dataLength != null ? dataLength : payload.length))
                        .writeShort(nameLength != null ? nameLength : name.length).writeBytes(name);
            }
            b.writeBytes(payload);
            byte[] crc = ChecksumAlgorithm.CRC32C.newHasher().update(b).finish().value();
            if (badChecksum) {
                crc[0] ^= 1;
            }
            b.writeBytes(crc);
            byte[] out = ByteBufUtil.getBytes(b);
            b.release();
            return out;
        }
    }

    private static Arguments bad(String what, Consumer<Raw> lie, Class<? extends DecoderException> type, String message) {
        Raw r = new Raw();
        lie.accept(r);
        return Arguments.of(what, r.bytes(), type, message);
    }

    static Stream<Arguments> malformedBlocks() {
        return Stream.of(
            bad("unknown version", r -> r.version = 2, UnsupportedBlockVersionException.class, "block version: 2 (expected: 1)"),
            bad("version zero", r -> r.version = 0, UnsupportedBlockVersionException.class, "block version: 0 (expected: 1)"),
            bad("unknown checksum", r -> r.checksum = 9, BlockFormatException.class, "checksum algorithm: 9 (expected: 1..7)"),
            bad("unknown flag", r -> r.flags |= 0x0080, BlockFormatException.class,
                "flags: 0x0081 has unknown bits 0x0080 (expected: only 0x007f)"),
            bad("two kinds", r -> r.flags |= BlockFlags.RTT_PROBE, BlockFormatException.class,
                "flags: DATA|RTT_PROBE (expected: exactly one of DATA, RTT_PROBE, RTT_ACK)"),
            bad("header over limit", r -> r.headerLength = 60_000, BlockTooLongException.class,
                "header length: 60000 (expected: <= 292)"),
            bad("header too short for a descriptor", r -> r.headerLength = 30, BlockFormatException.class,
                "header length: 30 (expected: >= 37 for a clear DATA block)"),
            bad("header longer than its descriptor", r -> r.headerLength = 42, BlockFormatException.class,
                "block abcdef#3: header length: 42 (expected: 41, the descriptor's end)"),
            bad("payload over limit", r -> r.payloadLength = 65_537L, BlockTooLongException.class,
                "payload length: 65537 (expected: <= 65536)"),
            bad("payload length near 4 GiB", r -> r.payloadLength = 0xFFFF_FFF0L, BlockTooLongException.class,
                "payload length: 4294967280 (expected: <= 65536)"),
            bad("payload and data lengths differ", r -> r.dataLength = 6L, BlockFormatException.class,
                "block abcdef#3: payload length: 5 (expected: 6, the data length)"),
            bad("compressed but not shorter", r -> r.flags |= BlockFlags.COMPRESSED, BlockFormatException.class,
                "block abcdef#3: payload length: 5 (expected: < 5, the data length)"),
            bad("data length over limit", r -> r.dataLength = 1L << 20, BlockTooLongException.class,
                "block abcdef#3: data length: 1048576 (expected: <= 65536)"),
            bad("name runs past the header", r -> r.nameLength = 6, TruncatedBlockException.class,
                "block abcdef#3: name length: 6 (expected: <= 5, the bytes left)"),
            bad("name over limit", r -> r.name = new byte[300], BlockTooLongException.class,
                "header length: 336 (expected: <= 292)"),
            bad("parent segment", r -> r.name = "a/../../etc/passwd".getBytes(StandardCharsets.UTF_8), UnsafeBlockNameException.class,
                "block abcdef#3: name \"a/../../etc/passwd\" is not normalised (expected: no empty, . or .. segments)"),
            bad("absolute name", r -> r.name = "/etc/passwd".getBytes(StandardCharsets.UTF_8), UnsafeBlockNameException.class,
                "block abcdef#3: name \"/etc/passwd\" is absolute (expected: a relative path)"),
            bad("NUL in name", r -> r.name = "a\0b".getBytes(StandardCharsets.UTF_8), UnsafeBlockNameException.class,
                "block abcdef#3: name \"a\\u0000b\" contains control character 0 (expected: none)"),
            bad("backslash in name", r -> r.name = "..\\x".getBytes(StandardCharsets.UTF_8), UnsafeBlockNameException.class,
                "block abcdef#3: name \"..\\x\" contains a backslash (expected: / between segments)"),
            bad("drive letter", r -> r.name = "C:/x".getBytes(StandardCharsets.UTF_8), UnsafeBlockNameException.class,
                "block abcdef#3: name \"C:/x\" starts with a drive letter (expected: a relative path)"),
            bad("overlong UTF-8 slash", r -> r.name = new byte[] {'a', (byte) 0xc0, (byte) 0xaf, 'b'}, UnsafeBlockNameException.class,
                "block abcdef#3: name is not valid UTF-8 (expected: UTF-8)"),
            bad("encrypted with a clear descriptor", r -> r.flags |= BlockFlags.ENCRYPTED, BlockFormatException.class,
                "header length: 41 (expected: 22 for DATA|ENCRYPTED)"),
            bad("encrypted payload shorter than a tag", r -> {
                r.flags |= BlockFlags.ENCRYPTED;
                r.descriptor = false;
            }, BlockFormatException.class, "payload length: 5 (expected: >= 31, a sealed descriptor and tag)"),
            bad("probe with a 5-byte payload", r -> {
                r.flags = BlockFlags.RTT_PROBE | BlockFlags.BUFFER_SIZE;
                r.descriptor = false;
            }, BlockFormatException.class, "payload length: 5 (expected: 4 for RTT_PROBE|BUFFER_SIZE)"),
            bad("negative file offset", r -> r.offset = -1, BlockFormatException.class,
                "block abcdef#3: file offset: 18446744073709551615 (expected: <= 9223372036854775807)"),
            bad("offset + length overflows", r -> r.offset = Long.MAX_VALUE - 2, BlockFormatException.class,
                "block abcdef#3: file offset + data length: overflow (expected: <= 9223372036854775807)"),
            bad("corrupted", r -> r.badChecksum = true, BlockChecksumException.class,
                "block abcdef#3: crc32c checksum mismatch (expected: the value at the end of the block)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedBlocks")
    void rejectsMalformedBlocksWithASpecificError(String what, byte[] block, Class<? extends DecoderException> type, String message) {
        EmbeddedChannel ch = new EmbeddedChannel(new BlockDecoder(LIMITS));
        DecoderException e = assertThrows(DecoderException.class, () -> ch.writeInbound(Unpooled.wrappedBuffer(block)));
        assertEquals(type, e.getClass(), e.toString());
        assertEquals(message, e.getMessage());
        // The stream cannot be framed any more: a valid block that follows is dropped, never decoded.
        ch.writeInbound(Unpooled.wrappedBuffer(new Raw().bytes()));
        assertNull(ch.readInbound());
        assertFalse(ch.finish());
    }

    @Test
    void rejectsAnOverLimitLengthBeforeThePayloadArrives() {
        Raw r = new Raw();
        r.payloadLength = 10_000_000L;
        byte[] headOnly = new byte[10];
        System.arraycopy(r.bytes(), 0, headOnly, 0, 10);
        EmbeddedChannel ch = new EmbeddedChannel(new BlockDecoder(LIMITS));
        assertThrows(BlockTooLongException.class, () -> ch.writeInbound(Unpooled.wrappedBuffer(headOnly)));
        assertFalse(ch.finish());
    }

    @Test
    void rejectsAnUnknownVersionFromItsFirstByte() {
        EmbeddedChannel ch = new EmbeddedChannel(new BlockDecoder(LIMITS));
        assertThrows(UnsupportedBlockVersionException.class, () -> ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {9})));
        assertFalse(ch.finish());
    }

    @Test
    void reportsAStreamThatEndsInsideAHeader() {
        EmbeddedChannel ch = new EmbeddedChannel(new BlockDecoder(LIMITS));
        ch.writeInbound(Unpooled.wrappedBuffer(new Raw().bytes(), 0, 10));
        TruncatedBlockException e = assertThrows(TruncatedBlockException.class, ch::finish);
        assertEquals("stream ended inside block header: 10 bytes (expected: >= 22)", e.getMessage());
    }

    @Test
    void reportsAStreamThatEndsInsideAPayload() {
        EmbeddedChannel ch = new EmbeddedChannel(new BlockDecoder(LIMITS));
        byte[] block = new Raw().bytes();
        ch.writeInbound(Unpooled.wrappedBuffer(block, 0, block.length - 1));
        TruncatedBlockException e = assertThrows(TruncatedBlockException.class, ch::finish);
        assertEquals("stream ended inside block abcdef#3: 49 bytes (expected: 50)", e.getMessage());
    }

    @Test
    void parsesAStoredBlockAndRefusesTrailingBytes() {
        byte[] block = new Raw().bytes();
        ByteBuf exact = Unpooled.wrappedBuffer(block);
        Block b = Blocks.parse(exact, LIMITS);
        assertEquals(new BlockDescriptor(0, 5, "f.txt"), b.header().descriptor());
        assertEquals("hello", b.payload().toString(StandardCharsets.UTF_8));
        b.release();
        exact.release();
        ByteBuf longer = Unpooled.wrappedBuffer(block, new byte[1]);
        assertThrows(BlockFormatException.class, () -> Blocks.parse(longer, LIMITS));
        longer.release();
    }
}

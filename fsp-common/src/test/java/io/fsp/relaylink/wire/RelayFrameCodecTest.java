package io.fsp.relaylink.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.token.TokenKey;
import io.fsp.token.TransferId;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RelayFrameCodecTest {
    private static final TransferId T = TransferId.parse("0011223344556677");
    private static final Instant WHEN = Instant.parse("2026-11-22T01:02:03.456Z");
    private static final byte[] BLOCK = "opaque encrypted block bytes".getBytes(StandardCharsets.US_ASCII);

    /** One of every frame, to encode and decode. */
    static List<RelayMessage> everyMessage() {
        return List.of(
                new RelayMessage.Hello(1, RelayMessage.VERSION),
                new RelayMessage.Welcome(1, RelayMessage.VERSION, RelayRole.SERVER),
                new RelayMessage.BindRequest(1),
                new RelayMessage.BindGrant(1, new byte[ClearLink.TICKET_LENGTH], "a secret of thirty-two bytes ...".getBytes(
                        StandardCharsets.US_ASCII)),
                new RelayMessage.OpenTransfer(2, T, new TokenKey(new byte[32]), WHEN, 1L << 40),
                new RelayMessage.OpenTransfer(2, T, new TokenKey(new byte[32]), WHEN, 1L << 40, true),
                new RelayMessage.PutBlock(3, T, 7, Unpooled.wrappedBuffer(BLOCK)),
                new RelayMessage.AbortTransfer(4, T),
                new RelayMessage.FinishTransfer(4, T),
                new RelayMessage.Authorize(5, new byte[] {1, 2, 3}),
                new RelayMessage.GetBlock(6, T, Long.MAX_VALUE),
                new RelayMessage.Confirm(7, T, List.of(1L, 2L, 99L)),
                new RelayMessage.StatusRequest(8, T),
                new RelayMessage.Holds(8, T, List.of(0L, 5L, Long.MAX_VALUE)),
                new RelayMessage.Held(8, T, List.of(5L)),
                new RelayMessage.Held(8, T, List.of()),
                new RelayMessage.Ok(-1),
                new RelayMessage.Block(9, T, 0, Unpooled.wrappedBuffer(BLOCK)),
                new RelayMessage.NotFound(10, T, 5),
                new RelayMessage.Confirmed(11, 3),
                new RelayMessage.Status(12, T, 4, 4096, WHEN, 1 << 20, 1 << 30),
                new RelayMessage.Status(12, T, 4, 4096, WHEN, 1 << 20, 1 << 30, 3L << 20),
                new RelayMessage.Error(0, RelayErrorCode.TOKEN_FORGED, "token MAC does not match – ü"));
    }

    @Test
    void everyMessageSurvivesEncodingAndDecoding() {
        for (RelayMessage m : everyMessage()) {
            String expected = describe(m);
            byte[] wire = encode(m);
            List<RelayMessage> decoded = decodeAll(wire, wire.length);
            assertEquals(1, decoded.size(), expected);
            assertEquals(expected, describe(decoded.get(0)));
            decoded.forEach(ReferenceCountUtil::release);
        }
    }

    @Test
    void framesSplitAtEveryByteOffsetDecodeTheSame() {
        ByteBuf all = Unpooled.buffer();
        List<String> expected = new ArrayList<>();
        for (RelayMessage m : everyMessage()) {
            expected.add(describe(m));
            all.writeBytes(encode(m));
        }
        byte[] wire = ByteBufUtil.getBytes(all);
        all.release();
        for (int chunk = 1; chunk <= 64; chunk++) {
            List<RelayMessage> decoded = decodeAll(wire, chunk);
            assertEquals(expected, decoded.stream().map(RelayFrameCodecTest::describe).toList(), "chunk " + chunk);
            decoded.forEach(ReferenceCountUtil::release);
        }
    }

    @Test
    void blockBytesArriveByteIdentical() {
        byte[] block = new byte[100_000];
        new java.util.Random(4).nextBytes(block);
        byte[] wire = encode(new RelayMessage.PutBlock(1, T, 42, Unpooled.wrappedBuffer(block)));
        RelayMessage.PutBlock put = (RelayMessage.PutBlock) decodeAll(wire, 1000).get(0);
        assertEquals(42, put.seq());
        assertArrayEquals(block, ByteBufUtil.getBytes(put.content()));
        put.release();
    }

    @Test
    void blockCutOffByTheConnectionClosingIsFreed() {
        List<ByteBuf> allocated = new ArrayList<>();
        ByteBufAllocator recording = new AbstractByteBufAllocator(false) {
            @Override
            protected ByteBuf newHeapBuffer(int initial, int max) {
                ByteBuf b = Unpooled.buffer(initial, max);
                allocated.add(b);
                return b;
            }

            @Override
            protected ByteBuf newDirectBuffer(int initial, int max) {
                ByteBuf b = Unpooled.directBuffer(initial, max);
                allocated.add(b);
                return b;
            }

            @Override
            public boolean isDirectBufferPooled() {
                return false;
            }
        };
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(recording);
        ch.pipeline().addLast(new RelayFrameDecoder(RelayLimits.DEFAULT));
        byte[] wire = encode(new RelayMessage.Block(1, T, 3, Unpooled.wrappedBuffer(new byte[50_000])));
        ch.writeInbound(Unpooled.wrappedBuffer(wire, 0, 10_000));
        ch.writeInbound(Unpooled.wrappedBuffer(wire, 10_000, 10_000));
        assertNull(ch.readInbound());
        assertFalse(allocated.isEmpty(), "the block is gathered in a buffer of its own");
        assertFalse(ch.finishAndReleaseAll());
        for (ByteBuf b : allocated) {
            assertEquals(0, b.refCnt());
        }
    }

    @Test
    void blockLongerThanTheLimitIsRefusedBeforeItsBodyArrives() {
        EmbeddedChannel ch = new EmbeddedChannel(new RelayFrameDecoder(new RelayLimits(1024)));
        ByteBuf header = Unpooled.buffer().writeByte(RelayFrame.PUT_BLOCK.wire()).writeInt(20 + 1025);
        DecoderException e = assertThrows(DecoderException.class, () -> ch.writeInbound(header));
        assertInstanceOf(TooLongFrameException.class, e);
        assertEquals("length: 1045 (expected: <= 1044)", e.getMessage());
        // Whatever follows is discarded, not parsed.
        assertFalse(ch.writeInbound(Unpooled.wrappedBuffer(encode(new RelayMessage.Ok(1)))));
        assertFalse(ch.finish());
    }

    @Test
    void decoderThatDoesNotYetAcceptBlocksLimitsBlockFramesToControlSize() {
        RelayFrameDecoder decoder = new RelayFrameDecoder(RelayLimits.DEFAULT, false);
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        ByteBuf big = Unpooled.buffer().writeByte(RelayFrame.PUT_BLOCK.wire()).writeInt(RelayLimits.MAX_CONTROL_BODY + 1);
        assertInstanceOf(TooLongFrameException.class, assertThrows(DecoderException.class, () -> ch.writeInbound(big)));
        assertFalse(ch.finish());

        RelayFrameDecoder trusting = new RelayFrameDecoder(RelayLimits.DEFAULT, false);
        EmbeddedChannel ok = new EmbeddedChannel(trusting);
        trusting.acceptBlocks();
        byte[] block = new byte[RelayLimits.MAX_CONTROL_BODY * 2];
        assertTrue(ok.writeInbound(Unpooled.wrappedBuffer(encode(new RelayMessage.PutBlock(1, T, 0,
                Unpooled.wrappedBuffer(block))))));
        RelayMessage.PutBlock put = ok.readInbound();
        assertEquals(block.length, put.content().readableBytes());
        put.release();
        assertFalse(ok.finish());
    }

    @Test
    void controlFrameLongerThanTheLimitIsRefused() {
        EmbeddedChannel ch = new EmbeddedChannel(new RelayFrameDecoder(RelayLimits.DEFAULT));
        ByteBuf header = Unpooled.buffer().writeByte(RelayFrame.ERROR.wire()).writeInt(Integer.MAX_VALUE);
        assertInstanceOf(TooLongFrameException.class, assertThrows(DecoderException.class, () -> ch.writeInbound(header)));
        assertFalse(ch.finish());
    }

    @Test
    void unknownTypeIsRefused() {
        EmbeddedChannel ch = new EmbeddedChannel(new RelayFrameDecoder(RelayLimits.DEFAULT));
        ByteBuf frame = Unpooled.buffer().writeByte(0x55).writeInt(4).writeInt(1);
        DecoderException e = assertThrows(DecoderException.class, () -> ch.writeInbound(frame));
        assertInstanceOf(CorruptedFrameException.class, e);
        assertEquals("type: 0x55 (expected: a known relay frame type)", e.getMessage());
        assertFalse(ch.finish());
    }

    @Test
    void openTransferWithoutRetentionKeepsItsEarlierBytes() {
        byte[] plain = encode(new RelayMessage.OpenTransfer(2, T, new TokenKey(new byte[32]), WHEN, 1));
        byte[] retained = encode(new RelayMessage.OpenTransfer(2, T, new TokenKey(new byte[32]), WHEN, 1, true));
        assertEquals(1 + 4 + 60, plain.length);
        assertEquals(plain.length + 1, retained.length);
        assertEquals(RelayMessage.OpenTransfer.RETAIN, retained[retained.length - 1]);
        assertFalse(((RelayMessage.OpenTransfer) decodeAll(plain, plain.length).get(0)).retained());
        assertTrue(((RelayMessage.OpenTransfer) decodeAll(retained, retained.length).get(0)).retained());
    }

    @Test
    void statusWithoutReservedIsUnknown() {
        byte[] old = encode(new RelayMessage.Status(12, T, 4, 4096, WHEN, 1 << 20, 1 << 30));
        byte[] now = encode(new RelayMessage.Status(12, T, 4, 4096, WHEN, 1 << 20, 1 << 30, 1 << 19));
        assertEquals(1 + 4 + 52, old.length);
        assertEquals(old.length + 8, now.length);
        assertEquals(RelayMessage.Status.UNKNOWN, ((RelayMessage.Status) decodeAll(old, old.length).get(0)).reserved());
        assertEquals(1 << 19, ((RelayMessage.Status) decodeAll(now, now.length).get(0)).reserved());
        assertThrows(IllegalArgumentException.class, () -> new RelayMessage.Status(1, T, 0, 0, WHEN, 0, 0, -2));
    }

    static Stream<Arguments> malformedFrames() {
        return Stream.of(
                Arguments.of("HELLO one byte short", "01 00000005 00000001 00"),
                Arguments.of("OK with trailing byte", "80 00000005 00000001 00"),
                Arguments.of("body shorter than an id", "80 00000002 0000"),
                Arguments.of("GET with negative seq", "21 00000014 00000001 " + "00".repeat(8) + "ffffffffffffffff"),
                Arguments.of("PUT without block bytes", "11 00000014 00000001 " + "00".repeat(8) + "0000000000000001"),
                Arguments.of("PUT with negative seq", "11 00000015 00000001 " + "00".repeat(8) + "8000000000000000 aa"),
                Arguments.of("CONFIRM with a partial seq", "22 00000011 00000001 " + "00".repeat(8) + "0000000000"),
                Arguments.of("CONFIRM with no seq", "22 0000000c 00000001 " + "00".repeat(8)),
                Arguments.of("CONFIRM with too many seqs", "22 " + String.format("%08x", 12 + 8 * 4097) + " 00000001 "
                        + "00".repeat(8) + "00".repeat(8 * 4097)),
                Arguments.of("HOLDS with no seq", "24 0000000c 00000001 " + "00".repeat(8)),
                Arguments.of("HOLDS with a partial seq", "24 00000013 00000001 " + "00".repeat(8) + "00".repeat(7)),
                Arguments.of("HOLDS with a negative seq", "24 00000014 00000001 " + "00".repeat(8) + "ff".repeat(8)),
                Arguments.of("HOLDS with too many seqs", "24 " + String.format("%08x", 12 + 8 * 4097) + " 00000001 "
                        + "00".repeat(8) + "00".repeat(8 * 4097)),
                Arguments.of("HOLDS without a transfer", "24 00000008 00000001 0000000a"),
                Arguments.of("HELD with a partial seq", "86 0000000d 00000001 " + "00".repeat(8) + "01"),
                Arguments.of("HELD with too many seqs", "86 " + String.format("%08x", 12 + 8 * 4097) + " 00000001 "
                        + "00".repeat(8) + "00".repeat(8 * 4097)),
                Arguments.of("HOLDS over the control limit", "24 00010001 00000001"),
                Arguments.of("AUTHORIZE without token", "20 00000004 00000001"),
                Arguments.of("AUTHORIZE with a huge token", "20 00000105 00000001 " + "00".repeat(257)),
                Arguments.of("WELCOME with unknown role", "02 00000007 00000001 0001 09"),
                Arguments.of("OPEN with negative hint", "10 0000003c 00000001 " + "00".repeat(8 + 32 + 8) + "ff".repeat(8)),
                Arguments.of("OPEN with an unknown flag", "10 0000003d 00000001 " + "00".repeat(8 + 32 + 8) + "00".repeat(7) + "01 02"),
                Arguments.of("OPEN with two flag bytes", "10 0000003e 00000001 " + "00".repeat(8 + 32 + 8) + "00".repeat(7) + "01 0100"),
                Arguments.of("STATUS_REPLY with a partial reserved", "84 00000038 00000001 " + "00".repeat(48 + 4)),
                Arguments.of("STATUS_REPLY with a negative reserved", "84 0000003c 00000001 " + "00".repeat(48) + "ff".repeat(8)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformedFrames")
    void malformedFrameIsRefusedWithoutLeaking(String name, String hex) {
        EmbeddedChannel ch = new EmbeddedChannel(new RelayFrameDecoder(RelayLimits.DEFAULT));
        ByteBuf frame = Unpooled.wrappedBuffer(HexFormat.of().parseHex(hex.replace(" ", "")));
        DecoderException e = assertThrows(DecoderException.class, () -> ch.writeInbound(frame));
        assertTrue(e instanceof CorruptedFrameException || e instanceof TooLongFrameException, e.toString());
        assertNull(ch.readInbound());
        assertFalse(ch.finish());
    }

    @Test
    void incompleteFrameWaitsForMoreBytes() {
        EmbeddedChannel ch = new EmbeddedChannel(new RelayFrameDecoder(RelayLimits.DEFAULT));
        byte[] wire = encode(new RelayMessage.GetBlock(1, T, 3));
        assertFalse(ch.writeInbound(Unpooled.wrappedBuffer(wire, 0, wire.length - 1)));
        assertTrue(ch.writeInbound(Unpooled.wrappedBuffer(wire, wire.length - 1, 1)));
        assertEquals(new RelayMessage.GetBlock(1, T, 3), ch.readInbound());
        assertFalse(ch.finish());
    }

    @Test
    void errorTextIsCutToItsLimit() {
        RelayMessage.Error e = new RelayMessage.Error(1, RelayErrorCode.BAD_FRAME, "x".repeat(10_000));
        assertEquals(RelayLimits.MAX_ERROR_TEXT, e.text().length());
        List<RelayMessage> decoded = decodeAll(encode(e), 100);
        assertEquals(e, decoded.get(0));
    }

    @Test
    void unknownErrorCodeFromANewerPeerDecodesAsUnknown() {
        ByteBuf frame = Unpooled.buffer().writeByte(RelayFrame.ERROR.wire()).writeInt(6).writeInt(1).writeShort(999);
        EmbeddedChannel ch = new EmbeddedChannel(new RelayFrameDecoder(RelayLimits.DEFAULT));
        ch.writeInbound(frame);
        assertEquals(new RelayMessage.Error(1, RelayErrorCode.UNKNOWN, ""), ch.readInbound());
        assertFalse(ch.finish());
    }

    // ---------------------------------------------------------------- helpers

    private static byte[] encode(RelayMessage m) {
        return encode(new RelayFrameEncoder(), List.of(m));
    }

    /** The frames {@code encoder} writes for {@code messages}, one after another. */
    static byte[] encode(RelayFrameEncoder encoder, List<RelayMessage> messages) {
        EmbeddedChannel ch = new EmbeddedChannel(encoder);
        ByteBuf out = Unpooled.buffer();
        for (RelayMessage m : messages) {
            assertTrue(ch.writeOutbound(m));
            for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
                out.writeBytes(b);
                b.release();
            }
        }
        assertFalse(ch.finish());
        byte[] bytes = ByteBufUtil.getBytes(out);
        out.release();
        return bytes;
    }

    private static List<RelayMessage> decodeAll(byte[] wire, int chunk) {
        EmbeddedChannel ch = new EmbeddedChannel(new RelayFrameDecoder(RelayLimits.DEFAULT));
        for (int i = 0; i < wire.length; i += chunk) {
            ByteBuf part = Unpooled.directBuffer().writeBytes(wire, i, Math.min(chunk, wire.length - i));
            ch.writeInbound(part);
        }
        List<RelayMessage> out = new ArrayList<>();
        for (Object o; (o = ch.readInbound()) != null; ) {
            out.add((RelayMessage) o);
        }
        assertFalse(ch.finish());
        return out;
    }

    /** A comparable description: records print their fields; block messages add their bytes. */
    private static String describe(RelayMessage m) {
        if (m instanceof RelayMessage.PutBlock p) {
            return p + " " + ByteBufUtil.hexDump(p.content());
        }
        if (m instanceof RelayMessage.Block b) {
            return b + " " + ByteBufUtil.hexDump(b.content());
        }
        if (m instanceof RelayMessage.Authorize a) {
            return a + " " + HexFormat.of().formatHex(a.token());
        }
        if (m instanceof RelayMessage.OpenTransfer o) {
            return o + " " + HexFormat.of().formatHex(o.tokenKey().bytes());
        }
        if (m instanceof RelayMessage.BindGrant g) {
            return g + " " + HexFormat.of().formatHex(g.ticket()) + " " + HexFormat.of().formatHex(g.secret());
        }
        return m.toString();
    }

    // ---------------------------------------------------------------- clear links (§3.7)

    private static final byte[] SECRET = ClearLink.random(ClearLink.SECRET_LENGTH);

    /** Every frame, tagged in one stream as one side of a clear link sends them. */
    private static byte[] tagged(byte[] secret, List<RelayMessage> messages) {
        return encode(new RelayFrameEncoder(ClearLink.toRelay(secret)), messages);
    }

    /** Decodes a tagged stream in pieces of {@code chunk} bytes; a bad tag ends it with the exception. */
    private static List<Object> decodeTagged(byte[] secret, byte[] wire, int chunk) {
        EmbeddedChannel ch = new EmbeddedChannel(new RelayFrameDecoder(RelayLimits.DEFAULT, true, ClearLink.toRelay(secret)));
        List<Object> out = new ArrayList<>();
        try {
            for (int i = 0; i < wire.length; i += chunk) {
                ch.writeInbound(Unpooled.directBuffer().writeBytes(wire, i, Math.min(chunk, wire.length - i)));
            }
        } catch (DecoderException e) {
            for (Object o; (o = ch.readInbound()) != null; ) {
                out.add(o);
            }
            out.add(e);
            ch.finishAndReleaseAll();
            return out;
        }
        for (Object o; (o = ch.readInbound()) != null; ) {
            out.add(o);
        }
        assertFalse(ch.finish());
        return out;
    }

    @Test
    void taggedFramesSurviveEncodingAndDecodingInAnyPieces() {
        List<String> expected = everyMessage().stream().map(RelayFrameCodecTest::describe).toList();
        byte[] wire = tagged(SECRET, everyMessage());
        assertEquals(encodedLength(everyMessage()) + everyMessage().size() * ClearLink.TAG_LENGTH, wire.length, "a tag per frame");
        for (int chunk : new int[] {1, 7, 64, wire.length}) {
            List<Object> decoded = decodeTagged(SECRET, wire, chunk);
            assertEquals(expected, decoded.stream().map(o -> describe((RelayMessage) o)).toList(), "chunk " + chunk);
            decoded.forEach(ReferenceCountUtil::release);
        }
    }

    private static int encodedLength(List<RelayMessage> messages) {
        return messages.stream().mapToInt(m -> encode(m).length).sum();
    }

    /**
     * Every byte of a PUT_BLOCK is covered, its block bytes too: a relay never stores a block changed on the way, even
     * with its wire checksum rewritten to match. A change ends the stream.
     */
    @Test
    void aChangedByteOfAPutBlockIsRefused() {
        RelayMessage first = new RelayMessage.Hello(1, RelayMessage.VERSION);
        byte[] clean = tagged(SECRET, List.of(new RelayMessage.Hello(1, RelayMessage.VERSION),
                new RelayMessage.PutBlock(2, T, 7, Unpooled.wrappedBuffer(BLOCK))));
        int put = encode(first).length + ClearLink.TAG_LENGTH;
        assertEquals(put + RelayFrame.HEADER_LENGTH + ClearLink.TAG_LENGTH + RelayFrame.BLOCK_PREFIX + BLOCK.length,
                clean.length);
        for (int i = put; i < clean.length; i++) {
            byte[] wire = clean.clone();
            wire[i] ^= 0x01;
            List<Object> decoded = decodeTagged(SECRET, wire, wire.length);
            assertInstanceOf(RelayMessage.Hello.class, decoded.get(0));
            boolean longer = i > put && i < put + RelayFrame.HEADER_LENGTH && decoded.size() == 1;
            if (!longer) { // a length made longer waits for bytes that never come (truncated, below)
                assertEquals(2, decoded.size(), "byte " + (i - put) + " of the PUT_BLOCK frame");
                assertInstanceOf(CorruptedFrameException.class, decoded.get(1), "byte " + (i - put));
            }
        }
    }

    /** A BLOCK's header, tag and fields are covered: a change ends the stream. */
    @Test
    void aChangedHeaderTagOrFieldOfABlockIsRefused() {
        byte[] clean = tagged(SECRET, List.of(new RelayMessage.Block(2, T, 7, Unpooled.wrappedBuffer(BLOCK))));
        for (int i = 0; i < RelayFrame.HEADER_LENGTH + ClearLink.TAG_LENGTH + RelayFrame.BLOCK_PREFIX; i++) {
            byte[] wire = clean.clone();
            wire[i] ^= 0x01;
            List<Object> decoded = decodeTagged(SECRET, wire, wire.length);
            boolean longer = i > 0 && i < RelayFrame.HEADER_LENGTH && decoded.isEmpty();
            if (!longer) {
                assertEquals(1, decoded.size(), "byte " + i + " of the BLOCK frame");
                assertInstanceOf(CorruptedFrameException.class, decoded.get(0), "byte " + i);
            }
        }
    }

    /**
     * A BLOCK's block bytes are not tagged: whoever fetches a block holds the transfer's key and checks its tag and
     * digest (which arrives over TLS), as it does for a relay that changes a block.
     */
    @Test
    void aChangedBlockByteOfABlockIsLeftToTheBlocksOwnChecks() {
        byte[] wire = tagged(SECRET, List.of(new RelayMessage.Block(2, T, 7, Unpooled.wrappedBuffer(BLOCK))));
        wire[wire.length - 1] ^= 0x01;
        List<Object> decoded = decodeTagged(SECRET, wire, wire.length);
        RelayMessage.Block b = (RelayMessage.Block) decoded.get(0);
        assertEquals(BLOCK[BLOCK.length - 1] ^ 0x01, b.content().getByte(BLOCK.length - 1));
        b.release();
    }

    @Test
    void aReplayedOrReorderedFrameIsRefused() {
        RelayMessage get = new RelayMessage.GetBlock(2, T, 7);
        byte[] one = tagged(SECRET, List.of(get));
        byte[] twice = new byte[one.length * 2];
        System.arraycopy(one, 0, twice, 0, one.length);
        System.arraycopy(one, 0, twice, one.length, one.length);
        List<Object> decoded = decodeTagged(SECRET, twice, twice.length);
        assertEquals(get, decoded.get(0));
        assertInstanceOf(CorruptedFrameException.class, decoded.get(1), "the same frame again: its number is past");

        byte[] two = tagged(SECRET, List.of(new RelayMessage.GetBlock(2, T, 7), new RelayMessage.GetBlock(3, T, 8)));
        int half = two.length / 2;
        byte[] swapped = new byte[two.length];
        System.arraycopy(two, half, swapped, 0, half);
        System.arraycopy(two, 0, swapped, half, half);
        assertInstanceOf(CorruptedFrameException.class, decodeTagged(SECRET, swapped, swapped.length).get(0),
                "the second frame first");
    }

    @Test
    void aFrameFromAnotherLinkOrDirectionIsRefused() {
        byte[] wire = tagged(SECRET, List.of(new RelayMessage.GetBlock(2, T, 7)));
        assertInstanceOf(CorruptedFrameException.class,
                decodeTagged(ClearLink.random(ClearLink.SECRET_LENGTH), wire, wire.length).get(0), "another secret");
        byte[] back = encode(new RelayFrameEncoder(ClearLink.fromRelay(SECRET)), List.of(new RelayMessage.Ok(2)));
        assertInstanceOf(CorruptedFrameException.class, decodeTagged(SECRET, back, back.length).get(0),
                "the relay's own frame sent back to it");
        byte[] untagged = encode(new RelayMessage.GetBlock(2, T, 7));
        List<Object> decoded = decodeTagged(SECRET, untagged, untagged.length);
        assertTrue(decoded.isEmpty() || decoded.get(0) instanceof DecoderException, "a frame without a tag: " + decoded);
    }

    /** A stream cut short yields no frame for the cut one: what arrived before stands, the rest never does. */
    @Test
    void aTruncatedFrameYieldsNothing() {
        byte[] wire = tagged(SECRET, List.of(new RelayMessage.GetBlock(2, T, 7),
                new RelayMessage.PutBlock(3, T, 8, Unpooled.wrappedBuffer(BLOCK))));
        int first = encode(new RelayMessage.GetBlock(2, T, 7)).length + ClearLink.TAG_LENGTH;
        for (int cut = first; cut < wire.length; cut++) {
            byte[] part = java.util.Arrays.copyOf(wire, cut);
            List<Object> decoded = decodeTagged(SECRET, part, part.length);
            assertEquals(1, decoded.size(), "cut at " + cut);
            assertInstanceOf(RelayMessage.GetBlock.class, decoded.get(0));
        }
    }
}

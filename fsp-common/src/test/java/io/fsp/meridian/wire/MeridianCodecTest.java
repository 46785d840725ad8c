package io.fsp.meridian.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.meridian.wire.MeridianMessage.Cookie;
import io.fsp.meridian.wire.MeridianMessage.Gossip;
import io.fsp.meridian.wire.MeridianMessage.MeasureReply;
import io.fsp.meridian.wire.MeridianMessage.MeasureRequest;
import io.fsp.meridian.wire.MeridianMessage.Ping;
import io.fsp.meridian.wire.MeridianMessage.Pong;
import io.fsp.meridian.wire.MeridianMessage.Query;
import io.fsp.meridian.wire.MeridianMessage.QueryKind;
import io.fsp.meridian.wire.MeridianMessage.QueryReply;
import io.fsp.meridian.wire.MeridianMessage.RingsReply;
import io.fsp.meridian.wire.MeridianMessage.RingsRequest;
import io.fsp.meridian.wire.MeridianMessage.ServiceReply;
import io.fsp.meridian.wire.MeridianMessage.ServiceRequest;
import io.fsp.tls.Fingerprint;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

class MeridianCodecTest {
    private static final InetSocketAddress A = new InetSocketAddress("127.0.0.1", 7400);
    private static final InetSocketAddress B = new InetSocketAddress("::1", 7401);
    private final MeridianCodec codec = new MeridianCodec(WireLimits.DEFAULT);

    static Stream<MeridianMessage> messages() {
        List<Constraint> cs = List.of(new Constraint(A, 20.5), new Constraint(B, 80));
        return Stream.of(
                new Ping(42), new Pong(-1),
                new Gossip(List.of()), new Gossip(List.of(A, B)),
                new MeasureRequest(7, List.of(A, B)),
                new MeasureReply(7, List.of(1.5, -1.0), 2),
                new Query(9, QueryKind.MULTI_CONSTRAINT, 1, 8, 3, 40, A, cs,
                        List.of(new QueryHit(B, List.of(10.0, 70.25)))),
                new Query(10, QueryKind.CLOSEST, 0, 8, 1, 0, B, List.of(new Constraint(A, 0)), List.of()),
                new QueryReply(9, 2, 57, List.of(new QueryHit(B, List.of(10.0, 70.25)))),
                new QueryReply(9, 2, 57, List.of()),
                new RingsRequest(3),
                new RingsReply(3, List.of(new RingEntry(6, true, A, 33.125), new RingEntry(9, false, B, 300))),
                new ServiceRequest(11),
                new ServiceReply(11, Optional.empty()),
                new ServiceReply(11, Optional.of(new ServiceInfo(7443, new Fingerprint(new byte[32])))),
                new Cookie(0x0123_4567_89ab_cdefL));
    }

    private static final long COOKIE = 0x1122_3344_5566_7788L;

    private byte[] bytes(MeridianMessage m) {
        ByteBuf buf = codec.encode(m, COOKIE, ByteBufAllocator.DEFAULT);
        try {
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    private MeridianMessage decode(byte[] bytes) {
        ByteBuf buf = Unpooled.wrappedBuffer(bytes);
        try {
            return codec.decode(buf);
        } finally {
            buf.release();
        }
    }

    @ParameterizedTest
    @MethodSource("messages")
    void roundTripsEveryMessage(MeridianMessage m) {
        assertEquals(m, decode(bytes(m)));
        ByteBuf buf = Unpooled.wrappedBuffer(bytes(m));
        try {
            assertEquals(MeridianMessage.isRequest(m) ? COOKIE : MeridianCodec.NO_COOKIE, codec.decodeDatagram(buf).cookie(),
                    "requests carry the cookie, other messages none");
        } finally {
            buf.release();
        }
    }

    @Test
    void whatAnUnverifiedSourceGetsBackIsNoLargerThanWhatItSent() {
        // A request without a valid cookie is answered with a COOKIE only, a PING with a PONG.
        int cookie = bytes(new Cookie(-1)).length;
        int smallestRequest = messages().filter(MeridianMessage::isRequest).mapToInt(m -> bytes(m).length).min().orElseThrow();
        assertEquals(12, cookie);
        assertEquals(13, smallestRequest, "an empty GOSSIP");
        assertTrue(cookie <= smallestRequest);
        assertEquals(bytes(new Ping(1)).length, bytes(new Pong(1)).length);
    }

    @ParameterizedTest
    @MethodSource("messages")
    void rejectsEveryTruncationAndTrailingGarbage(MeridianMessage m) {
        byte[] full = bytes(m);
        for (int cut = 0; cut < full.length; cut++) {
            byte[] part = java.util.Arrays.copyOf(full, cut);
            assertThrows(MeridianFormatException.class, () -> decode(part), "cut at " + cut);
        }
        byte[] longer = java.util.Arrays.copyOf(full, full.length + 1);
        MeridianFormatException e = assertThrows(MeridianFormatException.class, () -> decode(longer));
        assertEquals("trailing bytes: 1 (expected: 0)", e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "bad magic      | 4e52020100000000000000 | magic: 0x4e52 (expected: 0x4d52)",
            "old version    | 4d52010100000000000000 | version: 1 (expected: 2)",
            "unknown type   | 4d52026300             | type: 99 (expected: 1..12)",
            "service without fingerprint | 4d52020b 0000000000000001 1d13 00 | fingerprint length: 0 (expected: 32)",
            "no service with fingerprint | 4d52020b 0000000000000001 0000 20 | fingerprint length: 32 (expected: 0 when port is 0)",
            "request without cookie | 4d520208 00000000 | cookie: truncated, 4 bytes left (expected: >= 8)",
            "too many peers | 4d520203 0000000000000007 ff | peers: 255 (expected: <= 160)",
            "too many targets | 4d520204 0000000000000007 0000000000000001 11 | targets: 17 (expected: <= 16)",
            "bad family     | 4d520203 0000000000000007 01 05 7f000001 1cf8 | address family: 5 (expected: 4 or 6)",
            "port zero      | 4d520203 0000000000000007 01 04 7f000001 0000 | port: 0 (expected: 1..65535)",
            "closest with 2 targets | 4d520206 0000000000000007 0000000000000001 00 00 08 0001 00000000 04 7f000001 1cf8 02 | constraints: 2 (expected: 1)",
    })
    void rejectsMalformedWithClearMessage(String name, String hex, String message) {
        byte[] bytes = ByteBufUtil.decodeHexDump(hex.replace(" ", ""));
        MeridianFormatException e = assertThrows(MeridianFormatException.class, () -> decode(bytes));
        assertEquals(message, e.getMessage());
    }

    @Test
    void mutatedDatagramsDecodeOrFailCleanly() {
        // Random byte flips, insertions and cuts of valid messages: the decoder answers with a message or
        // a MeridianFormatException, never anything else.
        java.util.Random random = new java.util.Random(42);
        List<byte[]> seeds = messages().map(this::bytes).toList();
        int rejected = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] b = seeds.get(random.nextInt(seeds.size())).clone();
            int edits = 1 + random.nextInt(4);
            for (int e = 0; e < edits && b.length > 0; e++) {
                switch (random.nextInt(3)) {
                    case 0 -> b[random.nextInt(b.length)] = (byte) random.nextInt(256);
                    case 1 -> b = java.util.Arrays.copyOf(b, random.nextInt(b.length));
                    default -> {
                        byte[] longer = java.util.Arrays.copyOf(b, b.length + 1 + random.nextInt(8));
                        for (int k = b.length; k < longer.length; k++) {
                            longer[k] = (byte) random.nextInt(256);
                        }
                        b = longer;
                    }
                }
            }
            byte[] input = b;
            try {
                decode(input);
            } catch (MeridianFormatException expected) {
                rejected++;
            }
        }
        assertTrue(rejected > 10_000, "rejected: " + rejected);
    }

    @Test
    void rejectsOversizedDatagramBeforeParsing() {
        byte[] big = new byte[WireLimits.DEFAULT.maxMessageBytes() + 1];
        MeridianFormatException e = assertThrows(MeridianFormatException.class, () -> decode(big));
        assertEquals("length: 4097 (expected: <= 4096)", e.getMessage());
    }

    @Test
    void refusesToEncodeMoreEntriesThanTheLimit() {
        Gossip tooMany = new Gossip(Collections.nCopies(161, A));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> codec.encode(tooMany, ByteBufAllocator.DEFAULT));
        assertTrue(e.getMessage().startsWith("peers: 161"), e.getMessage());
    }

    @Test
    void boundsDerivedFromRttsAreClampedIntoWhatTheWireCarries() {
        // 207513 ms: a ratio over a 0.1 ms RTT times a 2 s outlier, as the simulator once built.
        List<Constraint> cs = List.of(Constraint.clamped(A, 207_513), Constraint.clamped(B, -0.5),
                Constraint.clamped(B, 59_999.9999999));
        assertEquals(List.of(Constraint.MAX_RTT_MS, 0.0, 59_999.9999999), cs.stream().map(Constraint::maxRttMs).toList());
        Query q = new Query(12, QueryKind.MULTI_CONSTRAINT, 0, 8, 1, 0, A, cs, List.of());
        Query back = (Query) decode(bytes(q));
        assertEquals(List.of(Constraint.MAX_RTT_MS, 0.0, Constraint.MAX_RTT_MS),
                back.constraints().stream().map(Constraint::maxRttMs).toList());
        assertThrows(IllegalArgumentException.class, () -> new Constraint(A, 207_513));
        assertThrows(IllegalArgumentException.class, () -> Constraint.clamped(A, Double.NaN));
    }
}

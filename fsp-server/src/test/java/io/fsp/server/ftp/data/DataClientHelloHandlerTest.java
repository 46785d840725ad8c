package io.fsp.server.ftp.data;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which ClientHellos count as an attempt to resume a session, from hand-built ClientHello bodies. */
class DataClientHelloHandlerTest {
    /** A ClientHello body with a session id of {@code sessionId} bytes and the given extensions (type, length). */
    private static ByteBuf hello(int sessionId, int... extensions) {
        ByteBuf ext = Unpooled.buffer();
        for (int i = 0; i < extensions.length; i += 2) {
            ext.writeShort(extensions[i]).writeShort(extensions[i + 1]).writeZero(extensions[i + 1]);
        }
        return hello(sessionId, ext);
    }

    private static ByteBuf hello(int sessionId, ByteBuf extensions) {
        ByteBuf b = Unpooled.buffer();
        b.writeShort(0x0303).writeZero(32);
        b.writeByte(sessionId).writeZero(sessionId);
        b.writeShort(2).writeShort(0x1301); // one cipher suite
        b.writeByte(1).writeByte(0);        // null compression
        b.writeShort(extensions.readableBytes()).writeBytes(extensions);
        extensions.release();
        return b;
    }

    /** A ClientHello body with a session id, a key share (51) and a supported_versions extension listing {@code versions}. */
    private static ByteBuf offering(int... versions) {
        ByteBuf ext = Unpooled.buffer();
        ext.writeShort(51).writeShort(4).writeZero(4);
        ext.writeShort(43).writeShort(1 + 2 * versions.length).writeByte(2 * versions.length);
        for (int v : versions) {
            ext.writeShort(v);
        }
        return hello(32, ext);
    }

    @ParameterizedTest(name = "session id {0}, extensions {1}/{2} {3}/{4}, TLS 1.2 only {5} -> {6}")
    @CsvSource({
        // TLS 1.3 client (supported_versions 43) with a pre-shared key (41): resumption
        "32, 43, 3, 41, 40, false, true",
        // ... but a connection limited to TLS 1.2 cannot resume a TLS 1.3 session
        "0, 43, 3, 41, 40, true, false",
        // TLS 1.3 client without PSK: its session id is a placeholder
        "32, 43, 3, 10, 4, false, false",
        // ... unless the connection is TLS 1.2, where the id names a TLS 1.2 session
        "32, 43, 3, 10, 4, true, true",
        // TLS 1.2-only client with a session id, or with a non-empty ticket (35)
        "32, 10, 4, 11, 2, false, true",
        "0, 35, 100, 10, 4, false, true",
        // TLS 1.2-only client, empty ticket extension, no id: a new session
        "0, 35, 0, 10, 4, false, false",
    })
    void recognisesResumptionAttempts(int sessionId, int t1, int l1, int t2, int l2, boolean tls12Only, boolean expected) {
        ByteBuf b = hello(sessionId, t1, l1, t2, l2);
        assertEquals(expected, DataClientHelloHandler.attemptsResumption(b, tls12Only));
        b.release();
    }

    @ParameterizedTest
    @CsvSource({"0", "10", "34", "35", "40", "41", "44"})
    void truncatedHelloIsNoResumptionAndNoCrash(int length) {
        ByteBuf full = hello(32, 41, 40);
        ByteBuf cut = full.slice(0, Math.min(length, full.readableBytes()));
        assertEquals(false, DataClientHelloHandler.attemptsResumption(cut, false));
        full.release();
    }

    /** A connection made before its transfer command is limited to TLS 1.2 unless the client cannot speak it. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "'TLS 1.3 and 1.2', 772, 771, true",
        "'TLS 1.3 only', 772, 772, false",
        "'TLS 1.2 in supported_versions', 771, 771, true",
    })
    void knowsWhichClientsOfferTls12(String what, int first, int second, boolean expected) {
        ByteBuf b = offering(first, second);
        assertEquals(expected, DataClientHelloHandler.offersTls12(b), what);
        b.release();
        ByteBuf legacy = hello(32, 10, 4); // no supported_versions: a TLS 1.2 client
        assertEquals(true, DataClientHelloHandler.offersTls12(legacy));
        legacy.release();
    }

    @ParameterizedTest
    @CsvSource({"0", "30", "40", "50", "55", "56", "57", "58", "59"})
    void truncatedVersionsAreReadAsTls12AndNoCrash(int length) {
        ByteBuf full = offering(772);
        ByteBuf cut = full.slice(0, Math.min(length, full.readableBytes()));
        assertEquals(length >= full.readableBytes() ? false : true, DataClientHelloHandler.offersTls12(cut),
                "first " + length + " of " + full.readableBytes() + " bytes");
        full.release();
    }
}

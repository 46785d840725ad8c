package io.fsp.checksum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

class ChecksumAlgorithmTest {

    @ParameterizedTest
    @CsvSource({
        "CRC32C, 123456789, e3069283",
        "CRC32, 123456789, cbf43926",
        "ADLER32, 123456789, 091e01de",
        "MD5, abc, 900150983cd24fb0d6963f7d28e17f72",
        "SHA1, abc, a9993e364706816aba3e25717850c26c9cd0d89d",
        "SHA256, abc, ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "BLAKE3, abc, 6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85",
    })
    void matchesPublishedTestVectors(ChecksumAlgorithm algorithm, String input, String hex) {
        Digest d = algorithm.newHasher().update(input.getBytes(StandardCharsets.US_ASCII)).finish();
        assertEquals(hex, d.hex());
        assertEquals(algorithm.length(), d.value().length);
    }

    @ParameterizedTest
    @EnumSource(ChecksumAlgorithm.class)
    void heapDirectAndCompositeBuffersGiveTheSameValue(ChecksumAlgorithm algorithm) {
        byte[] bytes = new byte[100_003];
        new Random(7).nextBytes(bytes);
        Hasher h = algorithm.newHasher();
        Digest fromArray = h.update(bytes).finish();

        ByteBuf heap = Unpooled.wrappedBuffer(bytes);
        ByteBuf direct = Unpooled.directBuffer(bytes.length).writeBytes(bytes);
        CompositeByteBuf composite = Unpooled.compositeBuffer()
                .addComponent(true, Unpooled.directBuffer().writeBytes(bytes, 0, 40_000))
                .addComponent(true, Unpooled.wrappedBuffer(bytes, 40_000, bytes.length - 40_000));
        try {
            assertEquals(fromArray, h.update(heap).finish());
            assertEquals(fromArray, h.update(direct).finish());
            assertEquals(fromArray, h.update(composite).finish());
            assertEquals(0, direct.readerIndex(), "indices do not move");
        } finally {
            heap.release();
            direct.release();
            composite.release();
        }
    }

    @ParameterizedTest
    @EnumSource(ChecksumAlgorithm.class)
    void finishResetsForTheNextBlock(ChecksumAlgorithm algorithm) {
        Hasher h = algorithm.newHasher();
        Digest first = h.update(new byte[] {1, 2, 3}).finish();
        assertEquals(first, h.update(new byte[] {1, 2, 3}).finish());
        assertNotEquals(first, h.update(new byte[] {1, 2, 4}).finish());
    }

    @Test
    void idsAndLabelsRoundTrip() {
        for (ChecksumAlgorithm a : ChecksumAlgorithm.values()) {
            assertSame(a, ChecksumAlgorithm.fromId(a.id()));
            assertSame(a, ChecksumAlgorithm.fromLabel(a.label()));
        }
        assertSame(ChecksumAlgorithm.SHA256, ChecksumAlgorithm.fromLabel("SHA-256"));
        assertEquals(null, ChecksumAlgorithm.fromId(0));
        assertEquals(null, ChecksumAlgorithm.fromId(8));
        assertThrows(IllegalArgumentException.class, () -> ChecksumAlgorithm.fromLabel("sha512"));
    }

    @Test
    void digestComparesByContentAndPrintsHex() {
        byte[] v = {1, 2, 3, (byte) 0xff};
        Digest a = new Digest(ChecksumAlgorithm.CRC32C, v);
        v[0] = 9; // the record copied the array
        Digest b = new Digest(ChecksumAlgorithm.CRC32C, new byte[] {1, 2, 3, (byte) 0xff});
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertEquals("crc32c:010203ff", a.toString());
        assertEquals(a, Digest.parse("crc32c:010203ff"));
        assertNotEquals(a, new Digest(ChecksumAlgorithm.ADLER32, new byte[] {1, 2, 3, (byte) 0xff}));
        a.value()[0] = 7;
        assertEquals(b, a, "value() hands out a copy");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Digest(ChecksumAlgorithm.SHA256, new byte[4]));
        assertEquals("sha256 value length: 4 (expected: 32)", e.getMessage());
    }
}

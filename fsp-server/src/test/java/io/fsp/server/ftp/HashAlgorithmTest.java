package io.fsp.server.ftp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HashAlgorithmTest {

    /** Published values for "abc"; fed in two pieces, from a direct buffer whose position must stay. */
    @ParameterizedTest
    @CsvSource({
        "SHA_256, ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "SHA_512, ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
        "SHA_1, a9993e364706816aba3e25717850c26c9cd0d89d",
        "MD5, 900150983cd24fb0d6963f7d28e17f72",
        "CRC32, 352441c2",
        "ADLER32, 024d0127",
    })
    void digestsPiecesWithoutMovingTheBuffer(HashAlgorithm algorithm, String hex) {
        ByteBuffer abc = ByteBuffer.allocateDirect(3).put("abc".getBytes(StandardCharsets.US_ASCII)).flip();
        HashAlgorithm.Digester d = algorithm.newDigester();
        d.update(abc.duplicate().limit(1));
        ByteBuffer rest = abc.duplicate().position(1);
        d.update(rest);
        assertEquals(1, rest.position(), "position stays");
        assertEquals(hex, d.hex());
    }
}

package io.fsp.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class NonceSequenceTest {

    @Test
    void nonceIsTransferIdThenSequenceBigEndian() {
        assertArrayEquals(HexFormat.of().parseHex("0102030405060708" + "0a0b0c0d"),
                NonceSequence.nonce(0x0102030405060708L, 0x0a0b0c0dL));
    }

    @Test
    void handsOutEachNumberOnceAndStopsAtThe32BitLimit() {
        NonceSequence s = new NonceSequence(NonceSequence.MAX_SEQUENCE - 1);
        assertEquals(NonceSequence.MAX_SEQUENCE - 1, s.next());
        assertEquals(NonceSequence.MAX_SEQUENCE, s.next());
        IllegalStateException e = assertThrows(IllegalStateException.class, s::next);
        assertTrue(e.getMessage().startsWith("sequence: 4294967296 (expected: <= 4294967295)"), e.getMessage());
        assertThrows(IllegalStateException.class, s::next, "stays exhausted");
    }

    @Test
    void replayGuardAcceptsEachSequenceOnceUntilForgotten() {
        ReplayGuard g = new ReplayGuard();
        assertTrue(g.accept(5));
        assertTrue(g.accept(70_000));
        assertFalse(g.accept(5));
        assertTrue(g.seen(70_000));
        assertFalse(g.seen(6));
        g.forget(5);
        assertTrue(g.accept(5));
    }

    @Test
    void keyNeverPrintsItsBytesAndChecksItsSize() {
        TransferKey k = TransferKey.generate(0xabcL, 256, new SecureRandom());
        assertEquals("TransferKey[transfer=abc, AES-256]", k.toString());
        assertEquals(32, k.encoded().length);
        assertEquals(k, TransferKey.of(0xabcL, k.encoded()));
        assertThrows(IllegalArgumentException.class, () -> TransferKey.of(1, new byte[24]));
        assertThrows(IllegalArgumentException.class, () -> TransferKey.generate(1, 192, new SecureRandom()));
    }
}

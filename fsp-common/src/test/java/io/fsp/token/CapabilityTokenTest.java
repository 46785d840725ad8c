package io.fsp.token;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class CapabilityTokenTest {
    private static final Instant NOW = Instant.parse("2026-11-22T00:00:00Z");
    private final TokenKey key = TokenKey.random();
    private final TransferId transfer = TransferId.random();
    private final CapabilityToken token = CapabilityToken.issue(key, transfer, NOW.plus(Duration.ofHours(1)),
            TokenScope.ALL);

    @Test
    void issuedTokenVerifiesWithItsKeyAndTransfer() throws TokenException {
        token.verify(key, transfer, NOW);
    }

    @Test
    void encodedAndTextFormsRoundTrip() throws TokenException {
        assertEquals(CapabilityToken.ENCODED_LENGTH, token.encode().length);
        assertEquals(token, CapabilityToken.decode(token.encode()));
        assertEquals(token, CapabilityToken.parse(token.toText()));
        CapabilityToken.parse(token.toText()).verify(key, transfer, NOW);
    }

    @Test
    void tokenMadeWithAnotherKeyIsForged() {
        CapabilityToken forged = CapabilityToken.issue(TokenKey.random(), transfer, NOW.plusSeconds(60), TokenScope.ALL);
        assertEquals(TokenException.Reason.FORGED,
                assertThrows(TokenException.class, () -> forged.verify(key, transfer, NOW)).reason());
    }

    @Test
    void everyAlteredByteMakesTheTokenForgedOrMalformed() throws TokenException {
        byte[] good = token.encode();
        for (int i = 0; i < good.length; i++) {
            byte[] bad = good.clone();
            bad[i] ^= 0x01;
            TokenException.Reason reason;
            try {
                CapabilityToken altered = CapabilityToken.decode(bad);
                TransferId claimed = altered.transferId();
                altered.verify(key, claimed, NOW);
                reason = null;
            } catch (TokenException e) {
                reason = e.reason();
            }
            assertTrue(reason == TokenException.Reason.FORGED || reason == TokenException.Reason.MALFORMED,
                    "byte " + i + " altered: " + reason);
        }
    }

    @Test
    void extendingTheExpiryBreaksTheMac() {
        CapabilityToken extended = new CapabilityToken(transfer, NOW.plus(Duration.ofDays(365)), TokenScope.ALL,
                token.mac());
        assertEquals(TokenException.Reason.FORGED,
                assertThrows(TokenException.class, () -> extended.verify(key, transfer, NOW)).reason());
    }

    @Test
    void expiredTokenIsRefused() {
        assertEquals(TokenException.Reason.EXPIRED, assertThrows(TokenException.class,
                () -> token.verify(key, transfer, NOW.plus(Duration.ofHours(1)))).reason());
    }

    @Test
    void tokenForAnotherTransferIsForeign() {
        assertEquals(TokenException.Reason.FOREIGN, assertThrows(TokenException.class,
                () -> token.verify(key, TransferId.random(), NOW)).reason());
    }

    @Test
    void malformedEncodingsAreRefused() {
        assertEquals(TokenException.Reason.MALFORMED,
                assertThrows(TokenException.class, () -> CapabilityToken.decode(new byte[3])).reason());
        byte[] wrongVersion = token.encode();
        wrongVersion[0] = 9;
        assertEquals(TokenException.Reason.MALFORMED,
                assertThrows(TokenException.class, () -> CapabilityToken.decode(wrongVersion)).reason());
        assertEquals(TokenException.Reason.MALFORMED,
                assertThrows(TokenException.class, () -> CapabilityToken.parse("not*base64")).reason());
        assertEquals(TokenException.Reason.MALFORMED,
                assertThrows(TokenException.class, () -> CapabilityToken.parse("A".repeat(10_000))).reason());
        byte[] badScope = token.encode();
        badScope[1 + 8 + 8] = (byte) 0x80; // unknown scope flag
        assertEquals(TokenException.Reason.MALFORMED,
                assertThrows(TokenException.class, () -> CapabilityToken.decode(badScope)).reason());
    }

    @Test
    void scopeLimitsOperationsAndRange() {
        TokenScope readFirstTen = new TokenScope(true, false, 0, 9);
        assertTrue(readFirstTen.covers(9));
        assertFalse(readFirstTen.covers(10));
        assertThrows(IllegalArgumentException.class, () -> new TokenScope(true, true, 5, 4));
    }

    @Test
    void printedFormsHideSecrets() {
        String mac = HexFormat.of().formatHex(token.mac());
        assertFalse(token.toString().contains(mac));
        assertFalse(token.toString().contains(Base64.getEncoder().encodeToString(token.mac())));
        assertEquals("TokenKey[hidden]", key.toString());
        assertEquals(transfer, TransferId.parse(transfer.toString()));
    }
}

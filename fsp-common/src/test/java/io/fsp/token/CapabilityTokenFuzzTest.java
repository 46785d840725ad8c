package io.fsp.token;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of the capability tokens clients present to relays (docs/protocol.md §3.4). The first
 * input byte picks a property:
 * <ul>
 * <li>0: a token issued with {@link #KEY}, changed in one or more bytes of its encoded form, is never accepted
 *     for its transfer: decoding refuses it or {@link CapabilityToken#verify} does;</li>
 * <li>1: the same for its text form, changed in one or more characters;</li>
 * <li>2: any bytes, and 3: any text, are refused with a {@link TokenException} and nothing else, and whatever
 *     is accepted encodes back to exactly the bytes (or the text) it came from.</li>
 * </ul>
 * {@code mvn verify} fuzzes it for a bounded time; plain test runs replay the inputs in
 * {@code CapabilityTokenFuzzTestInputs}.
 */
class CapabilityTokenFuzzTest {
    private static final TokenKey KEY = new TokenKey(new byte[TokenKey.LENGTH]);
    private static final Instant NOW = Instant.parse("2026-11-22T00:00:00Z");

    // Jazzer turns the JUnit timeout into libFuzzer's per-input limit; it also bounds the whole run.
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @FuzzTest(maxDuration = "5s")
    void alteredTokensAreRefusedAndParsingOnlyRefuses(FuzzedDataProvider data) {
        switch (data.consumeInt(0, 3)) {
            case 0 -> {
                CapabilityToken issued = issue(data);
                byte[] altered = issued.encode();
                alter(data, altered.length, i -> altered[i] ^= (byte) data.consumeInt(1, 255));
                assertRefused(issued, () -> CapabilityToken.decode(altered));
            }
            case 1 -> {
                CapabilityToken issued = issue(data);
                char[] altered = issued.toText().toCharArray();
                alter(data, altered.length, i -> {
                    char c = data.consumeChar();
                    altered[i] = c == altered[i] ? (char) (c + 1) : c;
                });
                assertRefused(issued, () -> CapabilityToken.parse(new String(altered)));
            }
            case 2 -> {
                byte[] bytes = data.consumeRemainingAsBytes();
                try {
                    assertArrayEquals(bytes, CapabilityToken.decode(bytes).encode());
                } catch (TokenException refused) {
                    assertEquals(TokenException.Reason.MALFORMED, refused.reason());
                }
            }
            default -> {
                String text = data.consumeRemainingAsString();
                try {
                    assertEquals(text.trim(), CapabilityToken.parse(text).toText());
                } catch (TokenException refused) {
                    assertEquals(TokenException.Reason.MALFORMED, refused.reason());
                }
            }
        }
    }

    /** A token for any transfer, expiry after {@link #NOW} and scope the input names. */
    private static CapabilityToken issue(FuzzedDataProvider data) {
        long a = data.consumeLong() & Long.MAX_VALUE;
        long b = data.consumeLong() & Long.MAX_VALUE;
        TokenScope scope = new TokenScope(data.consumeBoolean(), data.consumeBoolean(), Math.min(a, b), Math.max(a, b));
        Instant expiry = NOW.plusMillis(data.consumeLong(1, Long.MAX_VALUE - NOW.toEpochMilli()));
        CapabilityToken token = CapabilityToken.issue(KEY, new TransferId(data.consumeLong()), expiry, scope);
        try {
            token.verify(KEY, token.transferId(), NOW); // the unaltered token is good
        } catch (TokenException e) {
            throw new AssertionError(e);
        }
        return token;
    }

    /** Changes the elements at 1 to 8 distinct positions the input picks (at least one). */
    private static void alter(FuzzedDataProvider data, int length, IntConsumer change) {
        boolean[] done = new boolean[length];
        int changes = data.consumeInt(1, 8);
        for (int n = 0; n < changes; n++) {
            int i = data.consumeInt(0, length - 1);
            if (!done[i]) {
                done[i] = true;
                change.accept(i);
            }
        }
    }

    private interface Decode {
        CapabilityToken get() throws TokenException;
    }

    /** Refused as malformed, forged or foreign: never as expired, which would mean its MAC matched. */
    private static void assertRefused(CapabilityToken issued, Decode altered) {
        TokenException refused = assertThrows(TokenException.class,
                () -> altered.get().verify(KEY, issued.transferId(), NOW), () -> "altered token accepted: " + issued);
        assertNotEquals(TokenException.Reason.EXPIRED, refused.reason());
    }
}

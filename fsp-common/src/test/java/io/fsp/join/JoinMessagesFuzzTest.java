package io.fsp.join;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.math.BigInteger;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Coverage-guided fuzzing of the JOIN payload decoder ({@link JoinMessages}), which reads what a peer that has not
 * logged in sends: any text is decoded or refused with {@link IllegalArgumentException}, never anything else; what
 * is decoded is positive, within the size bound, and encodes back to the same numbers. Plain test runs replay the
 * inputs in {@code JoinMessagesFuzzTestInputs}.
 */
class JoinMessagesFuzzTest {
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    @FuzzTest(maxDuration = "5s")
    void decodesOrRefusesAnyPayload(FuzzedDataProvider data) {
        int count = data.consumeInt(1, JoinMessages.MAX_NUMBERS);
        String text = data.consumeRemainingAsString();
        BigInteger[] numbers;
        try {
            numbers = JoinMessages.decode(text, count);
        } catch (IllegalArgumentException refused) {
            assertTrue(refused.getMessage() != null && !refused.getMessage().isEmpty());
            return;
        }
        for (BigInteger n : numbers) {
            assertTrue(n.signum() > 0 && n.bitLength() <= JoinMessages.MAX_NUMBER_BYTES * 8, n.toString());
        }
        assertArrayEquals(numbers, JoinMessages.decode(JoinMessages.encode(numbers), count));
    }
}

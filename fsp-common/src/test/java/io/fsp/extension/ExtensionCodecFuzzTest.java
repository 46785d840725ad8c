package io.fsp.extension;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Coverage-guided fuzzing of the FSP extension's parser: any exception other than an
 * {@link IllegalArgumentException} is a finding, and so is a line that is accepted but does not format back to
 * itself. {@code mvn verify} fuzzes for a bounded time; plain test runs replay stored inputs.
 */
class ExtensionCodecFuzzTest {
    @FuzzTest(maxDuration = "20s")
    void parserRefusesOrRoundTrips(byte[] input) {
        if (input.length < 1) {
            return;
        }
        String text = new String(Arrays.copyOfRange(input, 1, input.length), StandardCharsets.UTF_8);
        try {
            if ((input[0] & 3) == 2) {
                assertEquals(text, ExtensionCodec.formatPriority(ExtensionCodec.parsePriority(text)));
            } else if ((input[0] & 1) == 0) {
                assertEquals(text, ExtensionCodec.format(ExtensionCodec.parse(text)));
            } else {
                assertEquals(text, ExtensionCodec.format(ExtensionCodec.parseHeldRanges(text)));
            }
        } catch (IllegalArgumentException refused) {
            // malformed input is refused with a message naming the field
        }
    }
}

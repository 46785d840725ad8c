package io.fsp.extension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fsp.block.RelativePaths;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Coverage-guided fuzzing of the FSP extension's parser: any exception other than an
 * {@link IllegalArgumentException} is a finding, and so is a line that is accepted but does not format back to
 * itself, or a DIR or FILE line accepted with a name that is not a safe relative path. {@code mvn verify} fuzzes for a bounded time; plain test runs replay stored inputs.
 */
class ExtensionCodecFuzzTest {
    @FuzzTest(maxDuration = "5s")
    void parserRefusesOrRoundTrips(byte[] input) {
        if (input.length < 1) {
            return;
        }
        String text = new String(Arrays.copyOfRange(input, 1, input.length), StandardCharsets.UTF_8);
        try {
            if ((input[0] & 3) == 2) {
                assertEquals(text, ExtensionCodec.formatPriority(ExtensionCodec.parsePriority(text)));
            } else if ((input[0] & 1) == 0) {
                Announcement a = ExtensionCodec.parse(text);
                assertEquals(text, ExtensionCodec.format(a));
                String name = a instanceof Announcement.File f ? f.name() : a instanceof Announcement.Directory d ? d.name() : null;
                assertTrue(name == null || RelativePaths.problem(name) == null, "an accepted name is a safe relative path");
            } else {
                assertEquals(text, ExtensionCodec.format(ExtensionCodec.parseHeldRanges(text)));
            }
        } catch (IllegalArgumentException refused) {
            // malformed input is refused with a message naming the field
        }
    }
}

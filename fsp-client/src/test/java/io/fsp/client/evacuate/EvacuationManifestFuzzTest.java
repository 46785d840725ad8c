package io.fsp.client.evacuate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Coverage-guided fuzzing of the evacuation manifest's reader, which reads what anyone holding the safe site's
 * public key may have sealed: any exception other than an {@link IllegalArgumentException} is a finding, and so is
 * a manifest that is accepted but does not write back to exactly its text. {@code mvn verify} fuzzes for a bounded
 * time; plain test runs replay the inputs in {@code EvacuationManifestFuzzTestInputs} (seeded with a manifest).
 */
class EvacuationManifestFuzzTest {
    @FuzzTest(maxDuration = "5s")
    void readerRefusesOrRoundTrips(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        try {
            assertEquals(text, EvacuationManifest.parse(text).toText());
        } catch (IllegalArgumentException refused) {
            // malformed input is refused with a message naming the line
        }
    }
}

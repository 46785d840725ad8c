package io.fsp.client.verify;

import io.fsp.checksum.ChecksumAlgorithm;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class VerifierConfigTest {
    @Test
    void parsesModesAsGivenOnTheCommandLine() {
        assertEquals(VerificationMode.FIVER, VerificationMode.parse("fiver"));
        assertEquals(VerificationMode.RIVA, VerificationMode.parse(" RIVA "));
        assertEquals(VerificationMode.OFF, VerificationMode.parse("Off"));
        assertEquals("verify: md5 (expected: fiver, riva or off)",
                assertThrows(IllegalArgumentException.class, () -> VerificationMode.parse("md5")).getMessage());
    }

    @Test
    void refusesOutOfRangeKnobsNamingTheLimit() {
        VerifierConfig d = VerifierConfig.defaults();
        assertEquals("queueDepth: 0 (expected: 1..4096)",
                assertThrows(IllegalArgumentException.class, () -> d.withQueueDepth(0)).getMessage());
        assertEquals("hashThreads: 65 (expected: 1..64)",
                assertThrows(IllegalArgumentException.class, () -> d.withHashThreads(65)).getMessage());
        assertEquals("writerThreads: 0 (expected: 1..64)",
                assertThrows(IllegalArgumentException.class, () -> d.withWriterThreads(0)).getMessage());
    }

    @Test
    void defaultsAreFiverWithSha256() {
        VerifierConfig d = VerifierConfig.defaults();
        assertEquals(VerificationMode.FIVER, d.mode());
        assertEquals(ChecksumAlgorithm.SHA256, d.algorithm());
        assertEquals(16, d.queueDepth());
    }
}

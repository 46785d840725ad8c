package io.fsp.server.fs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class UploadNamesTest {
    @Test
    void partialNamesOfStorAndOfFcolAreHiddenOthersNot() {
        assertTrue(UploadNames.isPartial(UploadNames.partialName("report.pdf")));
        assertTrue(UploadNames.isPartial(".report.pdf.fsp-part"), "FCOL's collector writes .NAME.fsp-part");
        assertFalse(UploadNames.isPartial("report.pdf.fsp-part"));
        assertFalse(UploadNames.isPartial(".report.pdf"));
        assertFalse(UploadNames.isPartial(".report.fsp-part.pdf"));
    }

    @Test
    void partialNamesLocksJournalsAndManifestsAreReserved() {
        for (String name : new String[] {UploadNames.partialName("a.bin"), ".a.bin.fsp-part", ".a.bin.fsp-lock",
                ".a.bin.fsp-journal", ".a.bin.fsp-manifest", ".fsp-root.fsp-lock"}) {
            assertTrue(UploadNames.isReserved(name), name);
        }
        for (String name : new String[] {"a.bin.fsp-lock", ".a.bin", ".a.fsp-lock.bin", ".a.bin.fsp-part-xyz"}) {
            assertFalse(UploadNames.isReserved(name), name);
        }
    }
}

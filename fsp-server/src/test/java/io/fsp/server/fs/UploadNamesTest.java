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
}

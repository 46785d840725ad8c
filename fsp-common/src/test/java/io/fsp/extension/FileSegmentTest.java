package io.fsp.extension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class FileSegmentTest {
    private static final long[] SIZES = {10, 0, 5, 0, 0, 7, 100};

    private static List<FileSegment> of(int file, long offset, int length) {
        return FileSegment.of(file, offset, length, SIZES.length, f -> SIZES[f]);
    }

    @Test
    void aBlockInsideOneFileIsOneSegment() {
        assertEquals(List.of(new FileSegment(6, 40, 60)), of(6, 40, 60));
        assertEquals(List.of(new FileSegment(1, 0, 0)), of(1, 0, 0), "an empty block of an empty file");
    }

    @Test
    void aBlockRunsOnIntoTheNextFilesSkippingEmptyOnes() {
        assertEquals(List.of(new FileSegment(0, 0, 10), new FileSegment(2, 0, 5), new FileSegment(5, 0, 7)), of(0, 0, 22));
        assertEquals(List.of(new FileSegment(0, 4, 6), new FileSegment(2, 0, 5), new FileSegment(5, 0, 7),
                new FileSegment(6, 0, 3)), of(0, 4, 21), "the last part may end inside its file");
    }

    @Test
    void aBlockOutsideTheFilesIsRefused() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> of(6, 0, 101)).getMessage().contains("past the last file"));
        assertThrows(IllegalArgumentException.class, () -> of(7, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> of(-1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> of(0, 10, 1), "starts at its file's end");
        assertThrows(IllegalArgumentException.class, () -> of(0, 11, 0));
        assertThrows(IllegalArgumentException.class, () -> of(1, 0, 1), "an empty file holds no block's first byte");
        assertThrows(IllegalArgumentException.class, () -> FileSegment.of(0, 0, 20, 3, f -> f == 1 ? -1 : 10),
                "a file of unknown size");
    }

    @Test
    void aBlockSpansAtMostTheFilesLimit() {
        int max = ExtensionLimits.MAX_FILES_PER_BLOCK;
        assertEquals(max, FileSegment.of(0, 0, max, max + 1, f -> 1).size());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FileSegment.of(0, 0, max + 1, max + 1, f -> 1))
                .getMessage().contains("span more than"));
        // empty files on the way count: a hostile announcement cannot make a client walk a million of them
        assertThrows(IllegalArgumentException.class, () -> FileSegment.of(0, 0, 2, 1_000_000, f -> f == 0 || f == 999_999 ? 1 : 0));
    }
}

package io.fsp.client.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.extension.FileSegment;
import org.junit.jupiter.api.Test;

class BlockTilingTest {
    private static void add(BlockTiling tiling, long seq, int file, long offset, int length, String name) {
        tiling.add(seq, new FileSegment(file, offset, length), name);
    }

    @Test
    void blocksThatTileAFileCoverItsSize() {
        BlockTiling tiling = new BlockTiling();
        add(tiling, 1, 0, 4096, 100, "a");
        add(tiling, 0, 0, 0, 4096, "a");
        add(tiling, 2, 1, 0, 10, "b");
        assertEquals(4196, tiling.covered(0));
        assertEquals(10, tiling.covered(1));
        assertEquals(0, tiling.covered(2)); // announced no block: not covered
    }

    @Test
    void overlappingBlocksAreRefused() {
        BlockTiling tiling = new BlockTiling();
        add(tiling, 0, 0, 0, 4096, "a");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> add(tiling, 1, 0, 4095, 10, "a"));
        assertTrue(e.getMessage().contains("overlap"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> add(tiling, 2, 0, 0, 1, "a"));
        add(tiling, 3, 0, 4096, 1, "a"); // touching is fine
        assertEquals(4097, tiling.covered(0));
    }

    /** Blocks in order, then one out of order: the ranges already covered still count against overlaps. */
    @Test
    void blocksOutOfOrderAfterBlocksInOrder() {
        BlockTiling tiling = new BlockTiling();
        add(tiling, 0, 5, 0, 100, "f"); // a file index never seen before: the tables grow
        add(tiling, 1, 5, 100, 100, "f");
        add(tiling, 2, 5, 400, 100, "f"); // a gap: from now on by ranges
        assertThrows(IllegalArgumentException.class, () -> add(tiling, 3, 5, 150, 10, "f"), "inside the first two");
        assertThrows(IllegalArgumentException.class, () -> add(tiling, 4, 5, 350, 60, "f"), "into the third");
        add(tiling, 5, 5, 200, 200, "f"); // the gap exactly
        assertEquals(500, tiling.covered(5));
        add(tiling, 6, 7, 0, 0, "empty");
        add(tiling, 7, 7, 0, 0, "empty"); // an empty part overlaps nothing
        assertEquals(0, tiling.covered(7));
        assertEquals(0, tiling.covered(1_000_000));
    }
}

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
}

package io.fsp.client.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.extension.Announcement;
import org.junit.jupiter.api.Test;

class BlockTilingTest {
    private static final String DIGEST = "sha256:" + "ab".repeat(32);

    private static AnnouncedBlock blk(long seq, int file, long offset, int length) {
        return AnnouncedBlock.of((Announcement.Block) io.fsp.extension.ExtensionCodec.parse("BLK " + seq + " relay:0 " + file + " " + offset + " " + length + " " + DIGEST));
    }

    @Test
    void blocksThatTileAFileCoverItsSize() {
        BlockTiling tiling = new BlockTiling();
        tiling.add(blk(1, 0, 4096, 100), "a");
        tiling.add(blk(0, 0, 0, 4096), "a");
        tiling.add(blk(2, 1, 0, 10), "b");
        assertEquals(4196, tiling.covered(0));
        assertEquals(10, tiling.covered(1));
        assertEquals(0, tiling.covered(2)); // announced no block: not covered
    }

    @Test
    void overlappingBlocksAreRefused() {
        BlockTiling tiling = new BlockTiling();
        tiling.add(blk(0, 0, 0, 4096), "a");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> tiling.add(blk(1, 0, 4095, 10), "a"));
        assertTrue(e.getMessage().contains("overlap"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> tiling.add(blk(2, 0, 0, 1), "a"));
        tiling.add(blk(3, 0, 4096, 1), "a"); // touching is fine
        assertEquals(4097, tiling.covered(0));
    }
}

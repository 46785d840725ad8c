package io.fsp.block;

import static io.fsp.block.BlockFlags.BUFFER_SIZE;
import static io.fsp.block.BlockFlags.COMPRESSED;
import static io.fsp.block.BlockFlags.DATA;
import static io.fsp.block.BlockFlags.ENCRYPTED;
import static io.fsp.block.BlockFlags.END_OF_FILE;
import static io.fsp.block.BlockFlags.RTT_ACK;
import static io.fsp.block.BlockFlags.RTT_PROBE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class BlockFlagsTest {

    @Test
    void everyValidCombinationIsAcceptedAndEveryOtherRefused() {
        int valid = 0;
        for (int bits = 0; bits < 0x100; bits++) {
            int kind = bits & (DATA | RTT_PROBE | RTT_ACK);
            boolean expected = (bits & 0x80) == 0 && Integer.bitCount(kind) == 1
                    && (kind == DATA ? (bits & BUFFER_SIZE) == 0 : (bits & (END_OF_FILE | COMPRESSED | ENCRYPTED)) == 0);
            assertEquals(expected, BlockFlags.problem(bits) == null, BlockFlags.describe(bits));
            valid += expected ? 1 : 0;
        }
        assertEquals(8 + 2 + 2, valid, "DATA with any of EOF/COMPRESSED/ENCRYPTED, probe and ack with or without size");
    }

    @Test
    void describesFlagsByName() {
        assertEquals("DATA|END_OF_FILE|ENCRYPTED", new BlockFlags(DATA | END_OF_FILE | ENCRYPTED).toString());
        assertEquals("flags: 0x0101 has unknown bits 0x0100 (expected: only 0x007f)", BlockFlags.problem(0x0101));
        assertEquals("flags: none (expected: exactly one of DATA, RTT_PROBE, RTT_ACK)", BlockFlags.problem(0));
        assertNull(BlockFlags.problem(RTT_PROBE | BUFFER_SIZE));
        assertNotNull(BlockFlags.problem(RTT_PROBE | RTT_ACK));
    }
}

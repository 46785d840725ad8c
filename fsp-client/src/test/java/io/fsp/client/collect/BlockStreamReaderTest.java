package io.fsp.client.collect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fsp.block.Block;
import io.fsp.block.BlockFormatException;
import io.fsp.block.BlockLimits;
import io.fsp.block.BlockTooLongException;
import io.fsp.block.ControlBlocks;
import io.fsp.checksum.ChecksumAlgorithm;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.nio.channels.Channels;
import org.junit.jupiter.api.Test;

class BlockStreamReaderTest {
    private static byte[] probe(long seq, int bufferSize) {
        Block b = ControlBlocks.rttProbe(UnpooledByteBufAllocator.DEFAULT, ChecksumAlgorithm.CRC32C, 7, seq, bufferSize);
        try {
            return ByteBufUtil.getBytes(b.content());
        } finally {
            b.release();
        }
    }

    private static BlockStreamReader reader(byte[] stream) {
        return new BlockStreamReader(Channels.newChannel(new ByteArrayInputStream(stream)), BlockLimits.DEFAULT);
    }

    @Test
    void framesBlocksBackToBack() throws Exception {
        byte[] first = probe(1, ControlBlocks.NO_BUFFER_SIZE);
        byte[] second = probe(2, 65536);
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        stream.write(first);
        stream.write(second);
        BlockStreamReader r = reader(stream.toByteArray());
        for (byte[] expected : new byte[][] {first, second}) {
            ByteBuf wire = r.next();
            try {
                assertArrayEquals(expected, ByteBufUtil.getBytes(wire));
            } finally {
                wire.release();
            }
        }
        assertNull(r.next());
    }

    @Test
    void refusesABadHeaderBeforeReadingTheBlock() {
        byte[] badVersion = probe(1, ControlBlocks.NO_BUFFER_SIZE);
        badVersion[0] = 9;
        assertThrows(BlockFormatException.class, () -> reader(badVersion).next());
        byte[] badFlags = probe(1, ControlBlocks.NO_BUFFER_SIZE);
        badFlags[2] = (byte) 0xff;
        assertThrows(BlockFormatException.class, () -> reader(badFlags).next());
        byte[] huge = probe(1, ControlBlocks.NO_BUFFER_SIZE);
        huge[3] = 1; // a DATA block, not encrypted: header length 22 is too short for its descriptor
        assertThrows(BlockFormatException.class, () -> reader(huge).next());
    }

    @Test
    void refusesAPayloadBeyondTheLimits() {
        byte[] b = probe(1, ControlBlocks.NO_BUFFER_SIZE);
        b[2] = 0;
        b[3] = 0x41; // DATA | ENCRYPTED
        b[6] = (byte) 0x7f; // payload length ~2 GiB
        assertThrows(BlockTooLongException.class, () -> reader(b).next());
    }

    @Test
    void aStreamEndingInsideABlockIsAnError() {
        byte[] whole = probe(1, 65536);
        byte[] cut = java.util.Arrays.copyOf(whole, whole.length - 1);
        assertThrows(EOFException.class, () -> reader(cut).next());
        assertThrows(EOFException.class, () -> reader(java.util.Arrays.copyOf(whole, 10)).next());
    }
}

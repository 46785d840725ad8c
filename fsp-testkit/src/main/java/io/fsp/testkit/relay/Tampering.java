package io.fsp.testkit.relay;

import io.fsp.block.BlockDecoder;
import io.fsp.block.BlockHeader;
import io.fsp.block.BlockLimits;
import io.fsp.block.stage.WireChecksum;
import io.netty.buffer.ByteBuf;

/** The byte-level work of {@link Fault.FlipBit} and {@link Fault.Tamper}. */
public final class Tampering {
    private Tampering() {
    }

    /** A copy of {@code block} with one bit flipped in its middle; releases {@code block}. */
    public static ByteBuf flipBit(ByteBuf block) {
        ByteBuf copy = block.alloc().buffer(block.readableBytes()).writeBytes(block, block.readerIndex(),
                block.readableBytes());
        block.release();
        if (copy.isReadable()) {
            int at = copy.readableBytes() / 2;
            copy.setByte(at, copy.getByte(at) ^ 0x10);
        }
        return copy;
    }

    /**
     * A copy of {@code block} with one payload bit flipped and the wire checksum recomputed, so that only
     * end-to-end checks (AES-GCM, the plaintext digest) can notice; releases {@code block}. Bytes that are
     * not a block just get a bit flipped.
     */
    public static ByteBuf tamper(ByteBuf block) {
        BlockHeader header;
        try {
            header = BlockDecoder.readHeader(block, block.readerIndex(), block.readableBytes(),
                    new BlockLimits(BlockLimits.MAX_DATA_LENGTH, BlockLimits.DEFAULT.maxNameLength()));
        } catch (RuntimeException e) {
            header = null;
        }
        if (header == null || header.payloadLength() == 0 || block.readableBytes() != header.blockLength()) {
            return flipBit(block);
        }
        int covered = header.headerLength() + header.payloadLength();
        ByteBuf copy = block.alloc().buffer(block.readableBytes()).writeBytes(block, block.readerIndex(), covered);
        block.release();
        int at = header.headerLength() + header.payloadLength() / 2;
        copy.setByte(at, copy.getByte(at) ^ 0x10);
        new WireChecksum(header.checksum()).append(copy);
        return copy;
    }
}

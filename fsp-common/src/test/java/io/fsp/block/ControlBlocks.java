package io.fsp.block;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Hasher;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The small control blocks of dynamic right-sizing (paper 004 §3.2), for tests of the block readers. DRS blocks
 * concern one connection (one hop); they are never encrypted and never forwarded.
 */
public final class ControlBlocks {
    /** Buffer size value meaning "none": the probe or acknowledgement carries no BUFFER_SIZE payload. */
    public static final int NO_BUFFER_SIZE = -1;

    private ControlBlocks() {
    }

    /**
     * The receiver's RTT probe. Its {@code probe} number comes back in the acknowledgement's sequence field.
     *
     * @param bufferSize the receiver's socket buffer size in bytes, or {@link #NO_BUFFER_SIZE}
     */
    public static Block rttProbe(ByteBufAllocator alloc, ChecksumAlgorithm checksum, long transferId, long probe, int bufferSize) {
        return control(alloc, checksum, BlockFlags.RTT_PROBE, transferId, probe, bufferSize);
    }

    /** The sender's answer to probe {@code probe}, optionally with the buffer size it actually set. */
    public static Block rttAck(ByteBufAllocator alloc, ChecksumAlgorithm checksum, long transferId, long probe, int bufferSize) {
        return control(alloc, checksum, BlockFlags.RTT_ACK, transferId, probe, bufferSize);
    }

    /** The buffer size of a probe or acknowledgement, or {@link #NO_BUFFER_SIZE}. */
    public static int bufferSize(Block block) {
        if (!block.header().flags().hasBufferSize()) {
            return NO_BUFFER_SIZE;
        }
        long size = block.payload().getUnsignedInt(0);
        return (int) Math.min(size, Integer.MAX_VALUE);
    }

    private static Block control(ByteBufAllocator alloc, ChecksumAlgorithm checksum, int kind, long transferId,
                                 long sequence, int bufferSize) {
        if (bufferSize < NO_BUFFER_SIZE) {
            throw new IllegalArgumentException("bufferSize: " + bufferSize + " (expected: >= 0 or NO_BUFFER_SIZE)");
        }
        boolean withSize = bufferSize != NO_BUFFER_SIZE;
        BlockFlags flags = new BlockFlags(withSize ? kind | BlockFlags.BUFFER_SIZE : kind);
        BlockHeader header = new BlockHeader(BlockHeader.VERSION, checksum, flags, transferId, sequence, withSize ? 4 : 0, null);
        ByteBuf wire = alloc.buffer(header.blockLength());
        header.encode(wire);
        if (withSize) {
            wire.writeInt(bufferSize);
        }
        Hasher hasher = checksum.newHasher();
        hasher.update(wire).finish().writeTo(wire);
        return new Block(header, wire, true);
    }
}

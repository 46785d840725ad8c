package io.fsp.block;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Hasher;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Factories for the small control blocks of dynamic right-sizing (paper 004 §3.2) and for re-reading a
 * stored block. DRS blocks concern one connection (one hop); they are never encrypted and never forwarded.
 */
public final class Blocks {
    /** Buffer size value meaning "none": the probe or acknowledgement carries no BUFFER_SIZE payload. */
    public static final int NO_BUFFER_SIZE = -1;

    private Blocks() {
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

    /**
     * Parses one complete stored block (a relay's spill file, a test vector) and verifies its checksum.
     * The returned block holds its own reference to a slice of {@code wire}; the caller still owns
     * {@code wire}. Bytes after the block are not allowed.
     */
    public static Block parse(ByteBuf wire, BlockLimits limits) {
        BlockHeader header = BlockDecoder.readHeader(wire, wire.readerIndex(), wire.readableBytes(), limits);
        if (header == null) {
            throw new TruncatedBlockException("block header: " + wire.readableBytes() + " bytes (expected: more)");
        }
        if (wire.readableBytes() != header.blockLength()) {
            String problem = header.id() + ": length: " + wire.readableBytes() + " (expected: " + header.blockLength() + ")";
            throw wire.readableBytes() < header.blockLength() ? new TruncatedBlockException(problem) : new BlockFormatException(problem);
        }
        Block block = new Block(header, wire.retainedSlice(), true);
        if (!block.checksumMatches(header.checksum().newHasher())) {
            block.release();
            throw new BlockChecksumException(header.id() + ": " + header.checksum().label()
                    + " checksum mismatch (expected: the value at the end of the block)");
        }
        return block;
    }
}

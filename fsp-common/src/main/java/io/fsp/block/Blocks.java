package io.fsp.block;

import io.netty.buffer.ByteBuf;

/** Re-reading a stored block. */
public final class Blocks {
    private Blocks() {
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

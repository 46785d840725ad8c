package io.fsp.client.collect;

import io.fsp.block.BlockFormatException;
import io.fsp.block.BlockHeader;
import io.fsp.block.BlockLimits;
import io.fsp.block.BlockTooLongException;
import io.fsp.checksum.ChecksumAlgorithm;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * Splits a data connection carrying blocks back to back (FRET direct, FGET) into whole blocks, from the
 * lengths in each clear header (docs/protocol.md §2.2). A length beyond the limits is refused before
 * anything is allocated; the block's checksum and contents are checked later, by the pipeline.
 */
final class BlockStreamReader {
    /** Where the sequence number sits in a block's clear header (docs/protocol.md §2.2). */
    private static final int SEQUENCE_OFFSET = 18;

    private final ReadableByteChannel in;
    private final BlockLimits limits;
    private final ByteBuffer fixed = ByteBuffer.allocate(BlockHeader.FIXED_LENGTH);

    /**
     * @param in the data connection; a socket's own channel reads straight into the block's direct buffer, which
     *           the cipher then opens in place (an {@link java.io.InputStream} wrapped with
     *           {@link java.nio.channels.Channels#newChannel} works too, through a copy)
     */
    BlockStreamReader(ReadableByteChannel in, BlockLimits limits) {
        this.in = in;
        this.limits = limits;
    }

    /** The sequence number in the clear header of a block's wire bytes, to route it before it is checked. */
    static long sequenceOf(ByteBuf wire) {
        return wire.getUnsignedInt(wire.readerIndex() + SEQUENCE_OFFSET);
    }

    /** The next block's wire bytes (the caller releases them), or null at a clean end of stream. */
    ByteBuf next() throws IOException {
        fixed.clear();
        if (in.read(fixed) < 0) {
            return null;
        }
        while (fixed.hasRemaining()) {
            if (in.read(fixed) < 0) {
                throw new EOFException("direct block: stream ended inside a header");
            }
        }
        byte[] header = fixed.array();
        ChecksumAlgorithm checksum = ChecksumAlgorithm.fromId(header[1] & 0xFF);
        if (checksum == null) {
            throw new BlockFormatException("direct block: checksum algorithm " + (header[1] & 0xFF) + " (expected: a known id)");
        }
        int headerLength = ((header[4] & 0xFF) << 8) | (header[5] & 0xFF);
        long payloadLength = ((long) (header[6] & 0xFF) << 24) | ((header[7] & 0xFF) << 16) | ((header[8] & 0xFF) << 8) | (header[9] & 0xFF);
        if (headerLength < BlockHeader.FIXED_LENGTH || headerLength > limits.maxHeaderLength()) {
            throw new BlockFormatException("direct block: header length " + headerLength + " (expected: "
                    + BlockHeader.FIXED_LENGTH + ".." + limits.maxHeaderLength() + ")");
        }
        if (payloadLength > limits.maxPayloadLength()) {
            throw new BlockTooLongException("direct block: payload length " + payloadLength + " (expected: <= "
                    + limits.maxPayloadLength() + ")");
        }
        int total = headerLength + (int) payloadLength + checksum.length();
        ByteBuf wire = PooledByteBufAllocator.DEFAULT.directBuffer(total);
        try {
            wire.writeBytes(header);
            ByteBuffer rest = wire.nioBuffer(wire.writerIndex(), total - header.length);
            while (rest.hasRemaining()) {
                if (in.read(rest) < 0) {
                    throw new EOFException("direct block: stream ended " + rest.remaining() + " bytes early");
                }
            }
            wire.writerIndex(total);
            return wire;
        } catch (IOException | RuntimeException e) {
            wire.release();
            throw e;
        }
    }
}

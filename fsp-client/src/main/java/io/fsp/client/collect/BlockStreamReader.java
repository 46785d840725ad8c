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
import java.io.InputStream;

/**
 * Splits a data connection carrying blocks back to back (FRET direct, FGET) into whole blocks, from the
 * lengths in each clear header (docs/protocol.md §2.2). A length beyond the limits is refused before
 * anything is allocated; the block's checksum and contents are checked later, by the pipeline.
 */
final class BlockStreamReader {
    private final InputStream in;
    private final BlockLimits limits;

    BlockStreamReader(InputStream in, BlockLimits limits) {
        this.in = in;
        this.limits = limits;
    }

    /** The next block's wire bytes (the caller releases them), or null at a clean end of stream. */
    ByteBuf next() throws IOException {
        byte[] fixed = new byte[BlockHeader.FIXED_LENGTH];
        int first = in.read(fixed, 0, fixed.length);
        if (first < 0) {
            return null;
        }
        readFully(fixed, first, fixed.length - first);
        ChecksumAlgorithm checksum = ChecksumAlgorithm.fromId(fixed[1] & 0xFF);
        if (checksum == null) {
            throw new BlockFormatException("direct block: checksum algorithm " + (fixed[1] & 0xFF) + " (expected: a known id)");
        }
        int headerLength = ((fixed[4] & 0xFF) << 8) | (fixed[5] & 0xFF);
        long payloadLength = ((long) (fixed[6] & 0xFF) << 24) | ((fixed[7] & 0xFF) << 16) | ((fixed[8] & 0xFF) << 8) | (fixed[9] & 0xFF);
        if (headerLength < BlockHeader.FIXED_LENGTH || headerLength > limits.maxHeaderLength()) {
            throw new BlockFormatException("direct block: header length " + headerLength + " (expected: "
                    + BlockHeader.FIXED_LENGTH + ".." + limits.maxHeaderLength() + ")");
        }
        if (payloadLength > limits.maxPayloadLength()) {
            throw new BlockTooLongException("direct block: payload length " + payloadLength + " (expected: <= "
                    + limits.maxPayloadLength() + ")");
        }
        int total = headerLength + (int) payloadLength + checksum.length();
        ByteBuf wire = PooledByteBufAllocator.DEFAULT.heapBuffer(total);
        try {
            wire.writeBytes(fixed);
            int left = total - fixed.length;
            while (left > 0) {
                int n = wire.writeBytes(in, left);
                if (n < 0) {
                    throw new EOFException("direct block: stream ended " + left + " bytes early");
                }
                left -= n;
            }
            return wire;
        } catch (IOException | RuntimeException e) {
            wire.release();
            throw e;
        }
    }

    private void readFully(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            int n = in.read(b, off, len);
            if (n < 0) {
                throw new EOFException("direct block: stream ended inside a header");
            }
            off += n;
            len -= n;
        }
    }
}

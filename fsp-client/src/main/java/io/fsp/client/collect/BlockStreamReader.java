package io.fsp.client.collect;

import io.fsp.block.BlockDecoder;
import io.fsp.block.BlockHeader;
import io.fsp.block.BlockLimits;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * Splits a data connection carrying blocks back to back (FRET direct, FGET) into whole blocks, from the
 * fixed part of each clear header as {@link BlockDecoder#readFrame} checks it (docs/protocol.md §2): a bad
 * field or a length beyond the limits is refused before anything is allocated; the rest of the header, the
 * checksum and the contents are checked later, by the pipeline.
 */
final class BlockStreamReader {
    private final ReadableByteChannel in;
    private final BlockLimits limits;
    private final ByteBuffer fixed = ByteBuffer.allocate(BlockHeader.FIXED_LENGTH);
    private long sequence = -1;

    /**
     * @param in the data connection; a socket's own channel reads straight into the block's direct buffer, which
     *           the cipher then opens in place (an {@link java.io.InputStream} wrapped with
     *           {@link java.nio.channels.Channels#newChannel} works too, through a copy)
     */
    BlockStreamReader(ReadableByteChannel in, BlockLimits limits) {
        this.in = in;
        this.limits = limits;
    }

    /** The sequence number in the clear header of the block {@link #next} returned last. */
    long sequence() {
        return sequence;
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
        BlockDecoder.Frame frame = BlockDecoder.readFrame(Unpooled.wrappedBuffer(header), 0, header.length, limits);
        int total = frame.blockLength();
        sequence = frame.sequence();
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

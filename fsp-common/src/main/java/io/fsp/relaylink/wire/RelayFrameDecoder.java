package io.fsp.relaylink.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads relay frames: {@code type u8, length u32, body}. The length is checked against the limit for its
 * type before any body byte is buffered, fixed-size bodies must have exactly their size, and block bytes
 * are handed on as a slice of the received buffer (no copy) when the whole frame came in one read. A block
 * frame that arrives in pieces is gathered into one buffer of exactly its length, allocated once its header
 * has been checked: letting the cumulation grow instead copies each megabyte-sized block several times, into
 * buffers too large for the pool, which the JVM zero-fills; on a clear link the channel then reads the rest of the
 * frame straight into that buffer ({@link BlockReads}). After the first bad frame the decoder discards
 * everything else: the stream cannot be trusted to be in step any more. On a clear link (§3.7) every frame carries a
 * tag after its header, checked before the frame is parsed.
 */
public final class RelayFrameDecoder extends ByteToMessageDecoder {
    private enum State { HEADER, BODY, BROKEN }

    private final RelayLimits limits;
    /** The tags frames carry on a clear link, or null on TLS. */
    private final ClearLink.FrameTags tags;
    private final byte[] tag;
    private boolean acceptBlocks;
    private State state = State.HEADER;
    private int type;
    private RelayFrame frame;
    private int length;
    /** The block frame being gathered, or null. */
    private ByteBuf gathering;
    /** The part of {@link #gathering} the channel was last given to read into, or null. */
    private ByteBuf filling;

    /** A decoder that accepts block frames up to the limit (what a peer of a relay uses). */
    public RelayFrameDecoder(RelayLimits limits) {
        this(limits, true);
    }

    /**
     * @param acceptBlocks false: block frames may be no larger than control frames, until {@link
     *                     #acceptBlocks()} is called. A relay starts this way, so that a peer it does not
     *                     trust to push blocks can never make it buffer a large frame.
     */
    public RelayFrameDecoder(RelayLimits limits, boolean acceptBlocks) {
        this(limits, acceptBlocks, null);
    }

    /** @param tags the tags every frame carries after its header (a clear link, §3.7), or null (TLS) */
    public RelayFrameDecoder(RelayLimits limits, boolean acceptBlocks, ClearLink.FrameTags tags) {
        this.limits = limits;
        this.acceptBlocks = acceptBlocks;
        this.tags = tags;
        this.tag = tags == null ? null : new byte[ClearLink.TAG_LENGTH];
    }

    /** From now on, block frames may carry up to {@link RelayLimits#maxBlockBytes()}. */
    public void acceptBlocks() {
        acceptBlocks = true;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        switch (state) {
            case HEADER -> {
                if (in.readableBytes() < RelayFrame.HEADER_LENGTH + (tags == null ? 0 : ClearLink.TAG_LENGTH)) {
                    return;
                }
                type = in.readUnsignedByte();
                long bodyLength = in.readUnsignedInt();
                if (tags != null) {
                    in.readBytes(tag);
                }
                frame = RelayFrame.ofWire(type);
                if (frame == null) {
                    throw broken(in, new CorruptedFrameException(
                            "type: 0x" + Integer.toHexString(type) + " (expected: a known relay frame type)"));
                }
                long max = frame.carriesBlock() && acceptBlocks
                        ? RelayFrame.BLOCK_PREFIX + (long) limits.maxBlockBytes()
                        : RelayLimits.MAX_CONTROL_BODY;
                if (bodyLength > max) {
                    throw broken(in, new TooLongFrameException("length: " + bodyLength + " (expected: <= " + max + ")"));
                }
                length = (int) bodyLength;
                state = State.BODY;
                if (frame.carriesBlock() && in.readableBytes() < length) {
                    gathering = ctx.alloc().directBuffer(length, length);
                }
                decodeBody(in, out);
            }
            case BODY -> decodeBody(in, out);
            case BROKEN -> in.skipBytes(in.readableBytes());
        }
    }

    private void decodeBody(ByteBuf in, List<Object> out) {
        ByteBuf body;
        if (gathering != null) {
            gathering.writeBytes(in, Math.min(in.readableBytes(), gathering.writableBytes()));
            if (gathering.isWritable()) {
                return;
            }
            body = gathering;
            gathering = null;
        } else if (in.readableBytes() < length) {
            return;
        } else {
            body = in.readSlice(length).retain();
        }
        complete(in, body, out);
    }

    /**
     * Where the channel's next read should go: the rest of the block frame being gathered, or null (a buffer of
     * the channel's allocator). Only for a channel whose reads reach this decoder unchanged (no TLS before it):
     * see {@link BlockReads}. Once a frame is being gathered its earlier bytes have all been taken from the
     * cumulation, so bytes read here come next in the stream.
     */
    ByteBuf readTarget() {
        if (gathering == null || state != State.BODY) {
            return null;
        }
        filling = gathering.retainedSlice(gathering.writerIndex(), gathering.writableBytes()).clear();
        return filling;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (filling == null || msg != filling) {
            super.channelRead(ctx, msg);
            return;
        }
        filling = null;
        ByteBuf read = (ByteBuf) msg;
        int n = read.readableBytes();
        read.release();
        if (gathering == null) { // the decoder broke or was removed meanwhile: the bytes are not wanted
            return;
        }
        gathering.writerIndex(gathering.writerIndex() + n);
        if (gathering.isWritable()) {
            ctx.read(); // more of the block is wanted (reads may be on demand)
            return;
        }
        ByteBuf body = gathering;
        gathering = null;
        List<Object> out = new ArrayList<>(1);
        complete(Unpooled.EMPTY_BUFFER, body, out);
        for (Object m : out) {
            ctx.fireChannelRead(m);
        }
    }

    private void complete(ByteBuf in, ByteBuf body, List<Object> out) {
        state = State.HEADER;
        int covered = frame.carriesBlock() && !ClearLink.tagsBlockBytes(type)
                ? Math.min(length, RelayFrame.BLOCK_PREFIX) : length;
        if (tags != null && !tags.check(type, length, tag, body.slice(body.readerIndex(), covered))) {
            body.release();
            throw broken(in, new CorruptedFrameException("frame type 0x" + Integer.toHexString(type)
                    + ": its tag does not match (changed, replayed, reordered or from another link)"));
        }
        try {
            out.add(frame.read(body));
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            throw broken(in, new CorruptedFrameException("frame type 0x" + Integer.toHexString(type) + ": "
                    + e.getMessage()));
        } finally {
            body.release(); // a block message holds its own retained slice
        }
    }

    private RuntimeException broken(ByteBuf in, RuntimeException e) {
        state = State.BROKEN;
        in.skipBytes(in.readableBytes());
        releaseGathering();
        return e;
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        releaseGathering();
    }

    private void releaseGathering() {
        if (gathering != null) {
            gathering.release();
            gathering = null;
        }
    }
}

package io.fsp.relaylink.wire;

import io.fsp.token.TokenKey;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
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
                if (in.readableBytes() < FrameType.HEADER_LENGTH + (tags == null ? 0 : ClearLink.TAG_LENGTH)) {
                    return;
                }
                type = in.readUnsignedByte();
                long bodyLength = in.readUnsignedInt();
                if (tags != null) {
                    in.readBytes(tag);
                }
                if (!FrameType.known(type)) {
                    throw broken(in, new CorruptedFrameException(
                            "type: 0x" + Integer.toHexString(type) + " (expected: a known relay frame type)"));
                }
                long max = FrameType.carriesBlock(type) && acceptBlocks
                        ? FrameType.BLOCK_PREFIX + (long) limits.maxBlockBytes()
                        : RelayLimits.MAX_CONTROL_BODY;
                if (bodyLength > max) {
                    throw broken(in, new TooLongFrameException("length: " + bodyLength + " (expected: <= " + max + ")"));
                }
                length = (int) bodyLength;
                state = State.BODY;
                if (FrameType.carriesBlock(type) && in.readableBytes() < length) {
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
        int covered = FrameType.carriesBlock(type) && !ClearLink.tagsBlockBytes(type)
                ? Math.min(length, FrameType.BLOCK_PREFIX) : length;
        if (tags != null && !tags.check(type, length, tag, body.slice(body.readerIndex(), covered))) {
            body.release();
            throw broken(in, new CorruptedFrameException("frame type 0x" + Integer.toHexString(type)
                    + ": its tag does not match (changed, replayed, reordered or from another link)"));
        }
        try {
            out.add(parse(type, body));
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

    private static final int OPEN_TRANSFER_BODY = 4 + TransferId.LENGTH + TokenKey.LENGTH + 8 + 8;
    private static final int STATUS_REPLY_BODY = 4 + TransferId.LENGTH + 5 * 8;

    /** OPEN_TRANSFER's flags: whether the transfer is retained; unknown bits are refused. */
    private static boolean openFlags(int flags) {
        if ((flags & ~RelayMessage.OpenTransfer.RETAIN) != 0) {
            throw new IllegalArgumentException("open flags: " + flags + " (expected: 0 or " + RelayMessage.OpenTransfer.RETAIN + ")");
        }
        return flags == RelayMessage.OpenTransfer.RETAIN;
    }

    /** STATUS_REPLY's reserved bytes, when sent: never negative ({@link RelayMessage.Status#UNKNOWN} is its absence). */
    private static long reserved(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("reserved: " + bytes + " (expected: >= 0)");
        }
        return bytes;
    }

    private static RelayMessage parse(int type, ByteBuf body) {
        int fixed = switch (type) {
            case FrameType.HELLO -> 4 + 2;
            case FrameType.BIND_REQUEST -> 4;
            case FrameType.BIND_GRANT -> 4 + ClearLink.TICKET_LENGTH + ClearLink.SECRET_LENGTH;
            case FrameType.WELCOME -> 4 + 2 + 1;
            case FrameType.OPEN_TRANSFER -> body.readableBytes() == OPEN_TRANSFER_BODY + 1 ? OPEN_TRANSFER_BODY + 1
                    : OPEN_TRANSFER_BODY; // the flags byte is optional
            case FrameType.ABORT_TRANSFER, FrameType.FINISH_TRANSFER, FrameType.STATUS -> 4 + TransferId.LENGTH;
            case FrameType.GET_BLOCK, FrameType.NOT_FOUND -> 4 + TransferId.LENGTH + 8;
            case FrameType.OK -> 4;
            case FrameType.CONFIRMED -> 4 + 4;
            case FrameType.STATUS_REPLY -> body.readableBytes() == STATUS_REPLY_BODY + 8 ? STATUS_REPLY_BODY + 8
                    : STATUS_REPLY_BODY; // reserved is optional
            default -> -1; // variable length, checked below
        };
        if (fixed >= 0 && body.readableBytes() != fixed) {
            throw new IllegalArgumentException("length: " + body.readableBytes() + " (expected: " + fixed + ")");
        }
        if (body.readableBytes() < 4) {
            throw new IllegalArgumentException("length: " + body.readableBytes() + " (expected: >= 4)");
        }
        int id = body.readInt();
        return switch (type) {
            case FrameType.HELLO -> new RelayMessage.Hello(id, body.readUnsignedShort());
            case FrameType.WELCOME -> new RelayMessage.Welcome(id, body.readUnsignedShort(),
                    RelayRole.ofWire(body.readUnsignedByte()));
            case FrameType.BIND_REQUEST -> new RelayMessage.BindRequest(id);
            case FrameType.BIND_GRANT -> new RelayMessage.BindGrant(id, bytes(body, ClearLink.TICKET_LENGTH),
                    bytes(body, ClearLink.SECRET_LENGTH));
            case FrameType.OPEN_TRANSFER -> new RelayMessage.OpenTransfer(id, transferId(body),
                    new TokenKey(bytes(body, TokenKey.LENGTH)), Instant.ofEpochMilli(body.readLong()), body.readLong(),
                    body.isReadable() && openFlags(body.readUnsignedByte()));
            case FrameType.PUT_BLOCK -> {
                TransferId t = blockPrefix(body);
                long seq = seq(body);
                yield new RelayMessage.PutBlock(id, t, seq, blockBytes(body));
            }
            case FrameType.ABORT_TRANSFER -> new RelayMessage.AbortTransfer(id, transferId(body));
            case FrameType.FINISH_TRANSFER -> new RelayMessage.FinishTransfer(id, transferId(body));
            case FrameType.AUTHORIZE -> {
                int n = body.readableBytes();
                if (n < 1 || n > RelayLimits.MAX_TOKEN_BYTES) {
                    throw new IllegalArgumentException("token: " + n + " bytes (expected: 1.."
                            + RelayLimits.MAX_TOKEN_BYTES + ")");
                }
                yield new RelayMessage.Authorize(id, bytes(body, n));
            }
            case FrameType.GET_BLOCK -> new RelayMessage.GetBlock(id, transferId(body), body.readLong());
            case FrameType.CONFIRM -> new RelayMessage.Confirm(id, transferId(body), seqs(body));
            case FrameType.HOLDS -> new RelayMessage.Holds(id, transferId(body), seqs(body));
            case FrameType.HELD -> new RelayMessage.Held(id, transferId(body), seqs(body));
            case FrameType.STATUS -> new RelayMessage.StatusRequest(id, transferId(body));
            case FrameType.OK -> new RelayMessage.Ok(id);
            case FrameType.BLOCK -> {
                TransferId t = blockPrefix(body);
                long seq = seq(body);
                yield new RelayMessage.Block(id, t, seq, blockBytes(body));
            }
            case FrameType.NOT_FOUND -> new RelayMessage.NotFound(id, transferId(body), body.readLong());
            case FrameType.CONFIRMED -> new RelayMessage.Confirmed(id, body.readUnsignedInt());
            case FrameType.STATUS_REPLY -> new RelayMessage.Status(id, transferId(body), body.readLong(),
                    body.readLong(), Instant.ofEpochMilli(body.readLong()), body.readLong(), body.readLong(),
                    body.isReadable() ? reserved(body.readLong()) : RelayMessage.Status.UNKNOWN);
            case FrameType.ERROR -> {
                int code = body.readUnsignedShort();
                int n = body.readableBytes();
                if (n > RelayLimits.MAX_ERROR_TEXT * 3) {
                    throw new IllegalArgumentException("error text: " + n + " bytes (expected: <= "
                            + RelayLimits.MAX_ERROR_TEXT * 3 + ")");
                }
                yield new RelayMessage.Error(id, RelayErrorCode.ofWire(code),
                        body.readCharSequence(n, StandardCharsets.UTF_8).toString());
            }
            default -> throw new IllegalStateException("unreachable: type " + type);
        };
    }

    /** The rest of the body as sequence numbers, at most {@link RelayLimits#MAX_CONFIRM_SEQS} (before reading them). */
    private static List<Long> seqs(ByteBuf body) {
        int n = body.readableBytes();
        if (n % 8 != 0) {
            throw new IllegalArgumentException("seq list: " + n + " bytes (expected: a multiple of 8)");
        }
        if (n / 8 > RelayLimits.MAX_CONFIRM_SEQS) {
            throw new IllegalArgumentException("seqs: " + n / 8 + " (expected: 1.." + RelayLimits.MAX_CONFIRM_SEQS + ")");
        }
        List<Long> seqs = new ArrayList<>(n / 8);
        while (body.isReadable()) {
            seqs.add(body.readLong());
        }
        return seqs;
    }

    private static TransferId blockPrefix(ByteBuf body) {
        if (body.readableBytes() < FrameType.BLOCK_PREFIX - 4 + 1) {
            throw new IllegalArgumentException("length: " + (body.readableBytes() + 4) + " (expected: >= "
                    + (FrameType.BLOCK_PREFIX + 1) + ")");
        }
        return transferId(body);
    }

    private static long seq(ByteBuf body) {
        long seq = body.readLong();
        if (seq < 0) {
            throw new IllegalArgumentException("seq: " + seq + " (expected: >= 0)");
        }
        return seq;
    }

    private static ByteBuf blockBytes(ByteBuf body) {
        return body.readRetainedSlice(body.readableBytes());
    }

    private static TransferId transferId(ByteBuf body) {
        return new TransferId(body.readLong());
    }

    private static byte[] bytes(ByteBuf body, int n) {
        byte[] b = new byte[n];
        body.readBytes(b);
        return b;
    }
}

package io.fsp.relaylink.wire;

import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes {@link RelayMessage}s as frames. Block bytes are not copied: the frame header and the block's
 * own buffer go out as two buffers. An encoder for a clear link (§3.7) tags every frame and serves one channel;
 * one without tags may be shared.
 */
@Sharable
public final class RelayFrameEncoder extends MessageToMessageEncoder<RelayMessage> {
    private final ClearLink.FrameTags tags;

    public RelayFrameEncoder() {
        this(null);
    }

    /** @param tags the tags of what this side sends on a clear link, or null (TLS) */
    public RelayFrameEncoder(ClearLink.FrameTags tags) {
        super(RelayMessage.class);
        this.tags = tags;
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, RelayMessage msg, List<Object> out) {
        if (msg instanceof RelayMessage.PutBlock p) {
            out.add(blockHeader(ctx, FrameType.PUT_BLOCK, p.id(), p.transferId(), p.seq(), p.content()));
            out.add(p.content().retain());
            return;
        }
        if (msg instanceof RelayMessage.Block b) {
            out.add(blockHeader(ctx, FrameType.BLOCK, b.id(), b.transferId(), b.seq(), b.content()));
            out.add(b.content().retain());
            return;
        }
        if (msg instanceof RelayMessage.BlockRegion r) {
            out.add(blockHeader(ctx, FrameType.BLOCK, r.id(), r.transferId(), r.seq(), Math.toIntExact(r.region().count())));
            out.add(r.region().retain());
            return;
        }
        ByteBuf buf = ctx.alloc().buffer(64);
        int start = buf.writerIndex();
        buf.writeByte(0).writeInt(0); // header, patched below
        buf.writeZero(tagLength());
        int bodyStart = buf.writerIndex();
        buf.writeInt(msg.id());
        int type = writeBody(msg, buf);
        int length = buf.writerIndex() - bodyStart;
        buf.setByte(start, type);
        buf.setInt(start + 1, length);
        tag(buf, start, type, length, bodyStart, length);
        out.add(buf);
    }

    private ByteBuf blockHeader(ChannelHandlerContext ctx, int type, int id, TransferId transfer, long seq,
                                ByteBuf content) {
        return blockHeader(ctx, type, id, transfer, seq, content.readableBytes(), content);
    }

    private ByteBuf blockHeader(ChannelHandlerContext ctx, int type, int id, TransferId transfer, long seq, int size) {
        return blockHeader(ctx, type, id, transfer, seq, size, null);
    }

    /** @param content the block bytes when in memory, else null (a BLOCK from a file, whose tag does not cover them) */
    private ByteBuf blockHeader(ChannelHandlerContext ctx, int type, int id, TransferId transfer, long seq, int size,
                                ByteBuf content) {
        int length = FrameType.BLOCK_PREFIX + size;
        ByteBuf header = ctx.alloc().buffer(FrameType.HEADER_LENGTH + tagLength() + FrameType.BLOCK_PREFIX);
        int start = header.writerIndex();
        header.writeByte(type).writeInt(length).writeZero(tagLength());
        int prefixStart = header.writerIndex();
        header.writeInt(id).writeLong(transfer.value()).writeLong(seq);
        if (tags != null) {
            ByteBuf prefix = header.slice(prefixStart, FrameType.BLOCK_PREFIX);
            header.setBytes(start + FrameType.HEADER_LENGTH, ClearLink.tagsBlockBytes(type)
                    ? tags.next(type, length, prefix, content)
                    : tags.next(type, length, prefix));
        }
        return header;
    }

    private int tagLength() {
        return tags == null ? 0 : ClearLink.TAG_LENGTH;
    }

    /** On a clear link, fills the tag after the header at {@code start}: over the header and the covered body bytes. */
    private void tag(ByteBuf buf, int start, int type, int length, int coveredStart, int covered) {
        if (tags != null) {
            buf.setBytes(start + FrameType.HEADER_LENGTH, tags.next(type, length, buf.slice(coveredStart, covered)));
        }
    }

    /** Writes the body after the id and returns the frame type. */
    private static int writeBody(RelayMessage msg, ByteBuf buf) {
        if (msg instanceof RelayMessage.Hello h) {
            buf.writeShort(h.version());
            return FrameType.HELLO;
        }
        if (msg instanceof RelayMessage.Welcome w) {
            buf.writeShort(w.version()).writeByte(w.role().wire());
            return FrameType.WELCOME;
        }
        if (msg instanceof RelayMessage.BindRequest) {
            return FrameType.BIND_REQUEST;
        }
        if (msg instanceof RelayMessage.BindGrant g) {
            buf.writeBytes(g.ticket()).writeBytes(g.secret());
            return FrameType.BIND_GRANT;
        }
        if (msg instanceof RelayMessage.OpenTransfer o) {
            buf.writeLong(o.transferId().value()).writeBytes(o.tokenKey().bytes())
                    .writeLong(o.expiresAt().toEpochMilli()).writeLong(o.space());
            if (o.retained()) {
                buf.writeByte(RelayMessage.OpenTransfer.RETAIN); // absent otherwise: the same bytes as before retention
            }
            return FrameType.OPEN_TRANSFER;
        }
        if (msg instanceof RelayMessage.AbortTransfer a) {
            buf.writeLong(a.transferId().value());
            return FrameType.ABORT_TRANSFER;
        }
        if (msg instanceof RelayMessage.FinishTransfer f) {
            buf.writeLong(f.transferId().value());
            return FrameType.FINISH_TRANSFER;
        }
        if (msg instanceof RelayMessage.Authorize a) {
            buf.writeBytes(a.token());
            return FrameType.AUTHORIZE;
        }
        if (msg instanceof RelayMessage.GetBlock g) {
            buf.writeLong(g.transferId().value()).writeLong(g.seq());
            return FrameType.GET_BLOCK;
        }
        if (msg instanceof RelayMessage.Confirm c) {
            buf.writeLong(c.transferId().value());
            c.seqs().forEach(buf::writeLong);
            return FrameType.CONFIRM;
        }
        if (msg instanceof RelayMessage.StatusRequest s) {
            buf.writeLong(s.transferId().value());
            return FrameType.STATUS;
        }
        if (msg instanceof RelayMessage.Holds h) {
            buf.writeLong(h.transferId().value());
            h.seqs().forEach(buf::writeLong);
            return FrameType.HOLDS;
        }
        if (msg instanceof RelayMessage.Held h) {
            buf.writeLong(h.transferId().value());
            h.seqs().forEach(buf::writeLong);
            return FrameType.HELD;
        }
        if (msg instanceof RelayMessage.Ok) {
            return FrameType.OK;
        }
        if (msg instanceof RelayMessage.NotFound n) {
            buf.writeLong(n.transferId().value()).writeLong(n.seq());
            return FrameType.NOT_FOUND;
        }
        if (msg instanceof RelayMessage.Confirmed c) {
            buf.writeInt((int) Math.min(c.freed(), 0xFFFF_FFFFL));
            return FrameType.CONFIRMED;
        }
        if (msg instanceof RelayMessage.Status s) {
            buf.writeLong(s.transferId().value()).writeLong(s.blocks()).writeLong(s.bytes())
                    .writeLong(s.expiresAt().toEpochMilli()).writeLong(s.relayUsed()).writeLong(s.relayQuota());
            if (s.reserved() != RelayMessage.Status.UNKNOWN) {
                buf.writeLong(s.reserved());
            }
            return FrameType.STATUS_REPLY;
        }
        if (msg instanceof RelayMessage.Error e) {
            buf.writeShort(e.code().wire()).writeCharSequence(e.text(), StandardCharsets.UTF_8);
            return FrameType.ERROR;
        }
        throw new IllegalArgumentException("not a relay frame: " + msg.getClass().getName());
    }
}

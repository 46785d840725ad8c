package io.fsp.relay.wire;

import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes {@link RelayMessage}s as frames. Block bytes are not copied: the frame header and the block's
 * own buffer go out as two buffers.
 */
@Sharable
public final class RelayFrameEncoder extends MessageToMessageEncoder<RelayMessage> {
    public RelayFrameEncoder() {
        super(RelayMessage.class);
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
        ByteBuf buf = ctx.alloc().buffer(64);
        int start = buf.writerIndex();
        buf.writeByte(0).writeInt(0); // header, patched below
        buf.writeInt(msg.id());
        int type = writeBody(msg, buf);
        buf.setByte(start, type);
        buf.setInt(start + 1, buf.writerIndex() - start - FrameType.HEADER_LENGTH);
        out.add(buf);
    }

    private static ByteBuf blockHeader(ChannelHandlerContext ctx, int type, int id, TransferId transfer, long seq,
                                       ByteBuf content) {
        ByteBuf header = ctx.alloc().buffer(FrameType.HEADER_LENGTH + FrameType.BLOCK_PREFIX);
        return header.writeByte(type)
                .writeInt(FrameType.BLOCK_PREFIX + content.readableBytes())
                .writeInt(id)
                .writeLong(transfer.value())
                .writeLong(seq);
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
            return FrameType.STATUS_REPLY;
        }
        if (msg instanceof RelayMessage.Error e) {
            buf.writeShort(e.code().wire()).writeCharSequence(e.text(), StandardCharsets.UTF_8);
            return FrameType.ERROR;
        }
        throw new IllegalArgumentException("not a relay frame: " + msg.getClass().getName());
    }
}

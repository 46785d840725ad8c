package io.fsp.relaylink.wire;

import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
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
        if (msg instanceof RelayMessage.BlockFrame b) {
            int type = (b instanceof RelayMessage.PutBlock ? RelayFrame.PUT_BLOCK : RelayFrame.BLOCK).wire();
            out.add(blockHeader(ctx, type, b.id(), b.transferId(), b.seq(), b.content()));
            out.add(b.content().retain());
            return;
        }
        if (msg instanceof RelayMessage.BlockRegion r) {
            out.add(blockHeader(ctx, RelayFrame.BLOCK.wire(), r.id(), r.transferId(), r.seq(), Math.toIntExact(r.region().count())));
            out.add(r.region().retain());
            return;
        }
        ByteBuf buf = ctx.alloc().buffer(64);
        int start = buf.writerIndex();
        buf.writeByte(0).writeInt(0); // header, patched below
        buf.writeZero(tagLength());
        int bodyStart = buf.writerIndex();
        buf.writeInt(msg.id());
        RelayFrame frame = RelayFrame.of(msg);
        frame.write(msg, buf);
        int type = frame.wire();
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
        int length = RelayFrame.BLOCK_PREFIX + size;
        ByteBuf header = ctx.alloc().buffer(RelayFrame.HEADER_LENGTH + tagLength() + RelayFrame.BLOCK_PREFIX);
        int start = header.writerIndex();
        header.writeByte(type).writeInt(length).writeZero(tagLength());
        int prefixStart = header.writerIndex();
        header.writeInt(id).writeLong(transfer.value()).writeLong(seq);
        if (tags != null) {
            ByteBuf prefix = header.slice(prefixStart, RelayFrame.BLOCK_PREFIX);
            header.setBytes(start + RelayFrame.HEADER_LENGTH, ClearLink.tagsBlockBytes(type)
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
            buf.setBytes(start + RelayFrame.HEADER_LENGTH, tags.next(type, length, buf.slice(coveredStart, covered)));
        }
    }
}

package io.fsp.server.ftp.data;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import java.util.List;

/**
 * TYPE A on the way in (RFC 959 §3.1.1.1): CRLF becomes LF; a CR not followed by LF is kept. A CR at the
 * end of one buffer is held until the next shows what follows it.
 */
public final class AsciiDecoder extends MessageToMessageDecoder<ByteBuf> {
    private boolean pendingCr;

    public AsciiDecoder() {
        super(ByteBuf.class);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        ByteBuf converted = ctx.alloc().ioBuffer(in.readableBytes() + 1);
        if (pendingCr) {
            pendingCr = false;
            if (!in.isReadable() || in.getByte(in.readerIndex()) != '\n') {
                converted.writeByte('\r');
            }
        }
        int end = in.writerIndex();
        for (int i = in.readerIndex(); i < end; i++) {
            byte b = in.getByte(i);
            if (b == '\r') {
                if (i + 1 == end) {
                    pendingCr = true;
                } else if (in.getByte(i + 1) != '\n') {
                    converted.writeByte('\r');
                }
                continue;
            }
            converted.writeByte(b);
        }
        in.readerIndex(end);
        out.add(converted);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (pendingCr) {
            pendingCr = false;
            ctx.fireChannelRead(ctx.alloc().buffer(1).writeByte('\r'));
        }
        super.channelInactive(ctx);
    }
}

package io.fsp.testkit.relay;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;

/** Lets {@code limit} bytes out, the last buffer cut short if need be, then closes the connection. */
public final class CloseAfterHandler extends ChannelOutboundHandlerAdapter {
    private long left;

    public CloseAfterHandler(long limit) {
        this.left = limit;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ByteBuf buf)) {
            ctx.write(msg, promise);
            return;
        }
        if (left >= buf.readableBytes()) {
            left -= buf.readableBytes();
            ctx.write(buf, promise);
            return;
        }
        ByteBuf part = buf.retainedSlice(buf.readerIndex(), (int) left);
        ReferenceCountUtil.release(buf);
        left = 0;
        ctx.writeAndFlush(part).addListener(f -> ctx.close());
        promise.setFailure(new java.nio.channels.ClosedChannelException());
    }
}

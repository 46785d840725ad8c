package io.fsp.server.ftp.data;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslCloseCompletionEvent;

/**
 * The receiving end of a data connection with auto-read off: the first read is asked for here, each further one
 * by the subclass when it has room. The end of the stream is the peer's FIN or its TLS close_notify.
 */
public abstract class PullingReceiver extends ChannelInboundHandlerAdapter {
    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            ctx.read();
        }
    }

    @Override
    public final void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslCloseCompletionEvent) {
            endOfStream(ctx, true); // close_notify: the client is done sending
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public final void channelInactive(ChannelHandlerContext ctx) {
        endOfStream(ctx, false);
    }

    /** The peer sent all it will: by TLS close_notify (the connection is still open) or by closing it. */
    protected abstract void endOfStream(ChannelHandlerContext ctx, boolean closeNotify);
}

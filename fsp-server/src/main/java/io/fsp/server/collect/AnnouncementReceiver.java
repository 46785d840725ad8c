package io.fsp.server.collect;

import io.fsp.client.collect.RecordedTransfer;
import io.fsp.server.ftp.data.PullingReceiver;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.Promise;

/**
 * Reads FCOL's data connection into an {@link AnnouncementStream}, one read at a time (auto-read is off), so
 * that the stream's limits hold before anything more is read. The end of the stream (FIN, or TLS
 * close_notify) completes {@code done} with the recorded transfer; a refused line fails it and closes the
 * connection.
 */
public final class AnnouncementReceiver extends PullingReceiver {
    private final AnnouncementStream stream;
    private final Promise<RecordedTransfer> done;

    public AnnouncementReceiver(AnnouncementStream stream, Promise<RecordedTransfer> done) {
        this.stream = stream;
        this.done = done;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        try {
            if (!done.isDone()) {
                stream.feed(buf.nioBuffer());
            }
        } catch (IllegalArgumentException e) {
            done.tryFailure(e);
            ctx.close();
        } finally {
            buf.release();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (!done.isDone()) {
            ctx.read();
        }
    }

    @Override
    protected void endOfStream(ChannelHandlerContext ctx, boolean closeNotify) {
        end();
        if (closeNotify) {
            ctx.close();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        done.tryFailure(cause);
        ctx.close();
    }

    private void end() {
        if (done.isDone()) {
            return;
        }
        try {
            done.trySuccess(stream.end());
        } catch (IllegalArgumentException e) {
            done.tryFailure(e);
        }
    }
}

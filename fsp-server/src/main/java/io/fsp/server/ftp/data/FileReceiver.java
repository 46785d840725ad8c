package io.fsp.server.ftp.data;

import io.fsp.server.ftp.FtpSession;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.Promise;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Receives an upload (STOR, APPE, STOU) into a file. Auto-read is off: what one read brings is written
 * by the blocking executor, and the next read is asked for only when that write is done, so a slow disk
 * slows the sender instead of filling memory. The end of the stream (TCP FIN, or TLS close_notify, which
 * is answered with ours) completes the upload once every byte is written.
 */
public final class FileReceiver extends PullingReceiver {
    private final FtpSession session;
    private final FileChannel file;
    private final Executor blocking;
    private final Transfer transfer;
    private final Promise<Long> done;
    private final List<ByteBuf> pending = new ArrayList<>();
    private long position;
    private long received;
    private boolean writing;
    private boolean endOfStream;

    /**
     * @param position where the first byte goes (0, the REST offset, or the end of the file for APPE)
     * @param done     completed with the number of bytes written, after the last write
     */
    public FileReceiver(FtpSession session, FileChannel file, long position, Transfer transfer, Promise<Long> done) {
        this.session = session;
        this.file = file;
        this.position = position;
        this.blocking = session.server().blocking();
        this.transfer = transfer;
        this.done = done;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        if (done.isDone() || !buf.isReadable()) {
            buf.release();
            return;
        }
        pending.add(buf);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        writeOrRead(ctx);
    }

    @Override
    protected void endOfStream(ChannelHandlerContext ctx, boolean closeNotify) {
        endOfStream = true;
        writeOrRead(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        org.slf4j.LoggerFactory.getLogger(FileReceiver.class).debug("{} upload error after {} bytes (end of stream: {}): {}",
                session, received, endOfStream, cause.toString(), cause);
        if (endOfStream) {
            // After close_notify every byte has arrived; a client that then closes its socket at once makes
            // our reply close_notify bounce with a reset, which must not fail a complete upload.
            ctx.close();
            return;
        }
        fail(cause);
        ctx.close();
    }

    private void writeOrRead(ChannelHandlerContext ctx) {
        if (writing || done.isDone()) {
            return;
        }
        if (transfer.isAborted()) {
            fail(new IOException("aborted"));
            return;
        }
        if (pending.isEmpty()) {
            if (endOfStream) {
                done.trySuccess(received);
            } else {
                ctx.read();
            }
            return;
        }
        List<ByteBuf> batch = new ArrayList<>(pending);
        pending.clear();
        writing = true;
        long at = position;
        try {
            blocking.execute(() -> {
                IOException error = null;
                long written = 0;
                try {
                    for (ByteBuf b : batch) {
                        while (b.isReadable()) {
                            written += b.readBytes(file, at + written, b.readableBytes());
                        }
                    }
                } catch (IOException e) {
                    error = e;
                }
                IOException failure = error;
                long count = written;
                ctx.executor().execute(() -> {
                    batch.forEach(ByteBuf::release);
                    writing = false;
                    position += count;
                    received += count;
                    if (failure != null) {
                        fail(new LocalFileException(failure));
                        ctx.close();
                    } else {
                        writeOrRead(ctx);
                    }
                });
            });
        } catch (RejectedExecutionException e) {
            writing = false;
            batch.forEach(ByteBuf::release);
            fail(new LocalFileException(new IOException("server busy")));
            ctx.close();
        }
    }

    private void fail(Throwable cause) {
        pending.forEach(ByteBuf::release);
        pending.clear();
        done.tryFailure(cause);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        pending.forEach(ByteBuf::release);
        pending.clear();
    }

    long received() {
        return received;
    }

    FtpSession session() {
        return session;
    }
}

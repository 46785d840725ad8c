package io.fsp.server.ftp.data;

import io.fsp.server.ftp.FtpSession;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelProgressiveFuture;
import io.netty.channel.ChannelProgressiveFutureListener;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.stream.ChunkedNioFile;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Promise;
import java.nio.channels.FileChannel;
import java.util.function.LongConsumer;

/**
 * Sends a file (RETR) or a listing (LIST, NLST, MLSD) on a data channel, then closes it. A file goes as a
 * {@link DefaultFileRegion} ({@code sendfile(2)}: no copy through user space) when the channel is clear and
 * the type is binary; otherwise as a {@link ChunkedNioFile} through TLS and/or the ASCII encoder.
 */
public final class FileSender {
    /** Chunk size for TLS and ASCII: several TLS records per write, small enough to keep memory bounded. */
    static final int CHUNK_SIZE = 256 * 1024;

    private FileSender() {
    }

    /** Whether a transfer with these settings can use zero-copy. */
    public static boolean zeroCopy(boolean tls, boolean ascii) {
        return !tls && !ascii;
    }

    /**
     * Sends {@code length} bytes of {@code file} from {@code offset}; {@code sent} is told the file bytes as they are
     * written to the socket (before TLS and ASCII conversion), as the write reports its progress.
     */
    public static DataTransfers.Body file(FtpSession session, FileChannel file, long offset, long length, boolean ascii,
                                          LongConsumer sent) {
        return (ch, tls, transfer) -> {
            Promise<Long> done = ch.eventLoop().newPromise();
            DataChannelInitializer.ErrorHandler errors = new DataChannelInitializer.ErrorHandler(session);
            ch.pipeline().addLast(DataChannelInitializer.ERRORS, errors);
            Object message;
            if (zeroCopy(tls, ascii)) {
                message = new DefaultFileRegion(file, offset, length);
            } else {
                if (ascii) {
                    ch.pipeline().addBefore(DataChannelInitializer.CHUNKED, DataChannelInitializer.ASCII, new AsciiEncoder());
                }
                try {
                    message = new ChunkedNioFile(file, offset, length, CHUNK_SIZE);
                } catch (java.io.IOException e) {
                    done.tryFailure(new LocalFileException(e));
                    return done;
                }
            }
            ch.config().setAutoRead(true); // TLS handshakes and the peer's close must be read
            writeThenClose(ch, message, length, errors, done, sent);
            return done;
        };
    }

    public static DataTransfers.Body text(FtpSession session, ByteBuf listing) {
        return (ch, tls, transfer) -> {
            Promise<Long> done = ch.eventLoop().newPromise();
            DataChannelInitializer.ErrorHandler errors = new DataChannelInitializer.ErrorHandler(session);
            ch.pipeline().addLast(DataChannelInitializer.ERRORS, errors);
            ch.config().setAutoRead(true);
            writeThenClose(ch, listing, listing.readableBytes(), errors, done, bytes -> { });
            return done;
        };
    }

    private static void writeThenClose(Channel ch, Object message, long length,
                                       DataChannelInitializer.ErrorHandler errors, Promise<Long> done,
                                       LongConsumer sent) {
        SslHandler ssl = ch.pipeline().get(SslHandler.class);
        if (ssl != null && !ssl.handshakeFuture().isDone()) {
            // Finish the handshake first: with nothing to send (an empty file or listing) the close would
            // otherwise interrupt the client's handshake with an alert.
            ssl.handshakeFuture().addListener(h -> {
                if (h.isSuccess()) {
                    writeThenClose(ch, message, length, errors, done, sent);
                } else {
                    ReferenceCountUtil.release(message);
                    done.tryFailure(h.cause());
                }
            });
            return;
        }
        ch.writeAndFlush(message, ch.newProgressivePromise()).addListener(new Progress(sent, length))
                .addListener((ChannelFuture w) -> {
                    if (!w.isSuccess()) {
                        done.tryFailure(errors.cause() != null ? errors.cause() : w.cause());
                        return;
                    }
                    // Closing sends TLS close_notify first; the transfer counts only once the close is done.
                    ch.close().addListener(c -> done.trySuccess(length));
                });
    }

    /**
     * Tells {@code sent} the bytes a write reports as written (cumulative progress, on the channel's loop), and once
     * it succeeded whatever it did not report: each byte once.
     */
    static final class Progress implements ChannelProgressiveFutureListener {
        private final LongConsumer sent;
        private final long length;
        private long counted;

        Progress(LongConsumer sent, long length) {
            this.sent = sent;
            this.length = length;
        }

        @Override
        public void operationProgressed(ChannelProgressiveFuture f, long progress, long total) {
            count(Math.min(progress, length));
        }

        @Override
        public void operationComplete(ChannelProgressiveFuture f) {
            if (f.isSuccess()) {
                count(length);
            }
        }

        private void count(long upTo) {
            if (upTo > counted) {
                sent.accept(upTo - counted);
                counted = upTo;
            }
        }
    }
}

package io.fsp.server.ftp.data;

import io.fsp.server.ftp.DataConnection;
import java.util.concurrent.TimeUnit;
import java.time.Duration;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpReplyException;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import io.netty.channel.Channel;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one transfer: sends 150, gets the data connection, hands it to the transfer's body, and answers
 * 226 when the body's future succeeds, or the reply that fits its failure. 150 goes out before the data
 * connection is secured, because clients such as ftplib start the TLS handshake only after reading it.
 */
public final class DataTransfers {
    private static final String STALL = "stall";
    private static final Logger log = LoggerFactory.getLogger(DataTransfers.class);

    private DataTransfers() {
    }

    /** What moves the bytes once the data channel is connected and set up. */
    @FunctionalInterface
    public interface Body {
        /**
         * Starts moving bytes on {@code ch} (encrypted if {@code tls}); the future completes with the number of
         * bytes moved, after the data connection was closed and anything left to do (such as moving an
         * upload into place) is done.
         */
        Future<Long> start(Channel ch, boolean tls, Transfer transfer);
    }

    /** Runs on the blocking executor when the transfer has ended, whether it succeeded. */
    @FunctionalInterface
    public interface Cleanup {
        void run(boolean succeeded) throws IOException;
    }

    /**
     * Starts a transfer on {@code connection}. {@code cleanup} runs exactly once when the transfer ended
     * (closing files, removing what a failed upload left), off the event loop.
     */
    public static void run(FtpSession session, DataConnection connection, FtpPath about, String preliminary,
                           Body body, Cleanup cleanup) {
        run(session, connection, about, preliminary, false, body, cleanup);
    }

    /** As above; {@code upload} when the client sends the data (STOR, APPE, STOU). */
    public static void run(FtpSession session, DataConnection connection, FtpPath about, String preliminary,
                           boolean upload, Body body, Cleanup cleanup) {
        run(session, connection, about, preliminary, upload, body, cleanup,
                bytes -> new FtpReply(ReplyCode.TRANSFER_COMPLETE, "Transfer complete (" + bytes + " bytes)"));
    }

    /** As above, answering success with {@code completed}'s reply for the body's count (FCOL's summary). */
    public static void run(FtpSession session, DataConnection connection, FtpPath about, String preliminary,
                           boolean upload, Body body, Cleanup cleanup, java.util.function.LongFunction<FtpReply> completed) {
        run(session, connection, about, preliminary, upload, true, body, cleanup, completed);
    }

    /**
     * As {@link #run(FtpSession, DataConnection, FtpPath, String, Body, Cleanup)} for FRET's data connection (its
     * direct blocks): the striped transfer is under way as such ({@code fsp_server_striped_transfers_open}), so it
     * does not count among the FTP data transfers too.
     */
    public static void runStriped(FtpSession session, DataConnection connection, FtpPath about, String preliminary,
                                  Body body, Cleanup cleanup) {
        run(session, connection, about, preliminary, false, false, body, cleanup,
                bytes -> new FtpReply(ReplyCode.TRANSFER_COMPLETE, "Transfer complete (" + bytes + " bytes)"));
    }

    private static void run(FtpSession session, DataConnection connection, FtpPath about, String preliminary,
                            boolean upload, boolean ftp, Body body, Cleanup cleanup,
                            java.util.function.LongFunction<FtpReply> completed) {
        Transfer transfer = new Transfer(session, about.toString());
        Ending ending = new Ending(session, transfer, about, cleanup, completed);
        session.transfer(transfer);
        if (ftp) {
            transfer.whenFinished(session.server().metrics().ftpTransfer(upload)); // finished exactly once
        }
        session.reply(new FtpReply(ReplyCode.OPENING_DATA_CONNECTION, preliminary));
        Future<Channel> connecting = connection.connect();
        transfer.connecting(connecting);
        connecting.addListener(done -> {
            if (!done.isSuccess() || transfer.isAborted()) {
                if (done.isSuccess()) {
                    ((Channel) done.getNow()).close();
                }
                String why = done.cause() == null ? "cancelled" : done.cause().getMessage();
                log.info("{} data connection for {} failed: {}", session, about, why);
                ending.fail(new DataConnectionException("cannot open data connection: " + why));
                return;
            }
            Channel ch = (Channel) done.getNow();
            transfer.channel(ch);
            Duration stall = session.server().config().dataTimeout();
            FtpReplyException[] stalled = new FtpReplyException[1];
            // No byte moved either way for data-timeout (a write in progress that makes headway counts as moving):
            // the transfer fails with 426, its cleanup freeing the file and removing a partial upload.
            ch.pipeline().addFirst(STALL, new IdleStateHandler(true, 0, 0, stall.toMillis(), TimeUnit.MILLISECONDS) {
                @Override
                protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent evt) {
                    log.info("{} {}: no data moved for {} s; aborting", session, about, stall.toSeconds());
                    stalled[0] = new FtpReplyException(ReplyCode.TRANSFER_ABORTED, "No data moved for " + stall.toSeconds()
                            + " s (data-timeout); transfer aborted");
                    ctx.fireExceptionCaught(stalled[0]); // an error, not an end of stream: an upload is not complete
                    ctx.close();
                }
            });
            boolean tls = session.protectData();
            DataChannelInitializer.init(session, ch, upload).addListener(ready -> {
                if (!ready.isSuccess() || transfer.isAborted()) {
                    ch.close();
                    ending.fail(ready.isSuccess() ? new DataConnectionException("aborted") : ready.cause());
                    return;
                }
                Future<Long> result;
                try {
                    result = body.start(ch, tls, transfer);
                } catch (RuntimeException e) {
                    log.warn("{} transfer of {} failed to start", session, about, e);
                    ch.close();
                    ending.fail(e);
                    return;
                }
                result.addListener(r -> {
                    ch.close();
                    if (stalled[0] != null) {
                        ending.fail(stalled[0]); // an upload cut by the timeout is not a complete one
                    } else if (r.isSuccess()) {
                        ending.succeed((Long) r.getNow(), tls);
                    } else {
                        ending.fail(r.cause());
                    }
                });
            });
        });
    }

    /** The end of one transfer: cleanup off the loop, then the one final reply. */
    private static final class Ending {
        private final FtpSession session;
        private final Transfer transfer;
        private final FtpPath about;
        private final Cleanup cleanup;
        private final java.util.function.LongFunction<FtpReply> completed;
        private boolean ended;

        Ending(FtpSession session, Transfer transfer, FtpPath about, Cleanup cleanup,
               java.util.function.LongFunction<FtpReply> completed) {
            this.session = session;
            this.transfer = transfer;
            this.about = about;
            this.cleanup = cleanup;
            this.completed = completed;
        }

        void succeed(long bytes, boolean tls) {
            end(true, () -> {
                logSummary(session, transfer, bytes, tls);
                return completed.apply(bytes);
            });
        }

        void fail(Throwable cause) {
            end(false, () -> {
                if (transfer.isAborted()) {
                    log.info("{} {} aborted", session, about);
                    return Transfer.abortedReply();
                }
                log.info("{} {} failed: {}", session, about, cause.toString());
                log.debug("{} {} failure", session, about, cause);
                return replyFor(about, cause);
            });
        }

        private void end(boolean ok, java.util.function.Supplier<FtpReply> reply) {
            if (ended) {
                return;
            }
            ended = true;
            Runnable answer = () -> transfer.finish(reply.get());
            try {
                session.server().blocking().execute(() -> {
                    try {
                        cleanup.run(ok);
                    } catch (Throwable e) { // an Error too: the transfer must still be answered
                        log.warn("{} cleanup after {} failed: {}", session, about, e.toString());
                    }
                    session.channel().eventLoop().execute(answer);
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                log.warn("{} cleanup after {} skipped: executor shut down", session, about);
                answer.run();
            }
        }
    }

    static FtpReply replyFor(FtpPath about, Throwable cause) {
        if (cause instanceof FtpReplyException e) {
            return e.reply();
        }
        if (cause instanceof DataConnectionException) {
            return new FtpReply(ReplyCode.CANT_OPEN_DATA_CONNECTION, "Data connection failed: " + cause.getMessage());
        }
        if (cause instanceof java.util.concurrent.CancellationException) {
            return Transfer.abortedReply();
        }
        if (cause instanceof LocalFileException e) {
            return Replies.forFailure(about, e.getCause());
        }
        if (cause instanceof IOException || cause instanceof javax.net.ssl.SSLException
                || cause instanceof io.netty.handler.codec.DecoderException) {
            return new FtpReply(ReplyCode.TRANSFER_ABORTED, "Data connection closed; transfer aborted");
        }
        return Replies.localError();
    }

    private static void logSummary(FtpSession session, Transfer transfer, long bytes, boolean tls) {
        double ms = transfer.elapsedNanos() / 1e6;
        double mbps = ms > 0 ? bytes / 1e6 / (ms / 1e3) : 0;
        log.info("{} {}: {} bytes in {} ms ({} MB/s){}", session, transfer.description(), bytes,
                String.format(Locale.ROOT, "%.1f", ms), String.format(Locale.ROOT, "%.1f", mbps), tls ? " over TLS" : "");
    }
}

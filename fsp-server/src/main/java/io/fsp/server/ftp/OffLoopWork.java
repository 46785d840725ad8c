package io.fsp.server.ftp;

import io.fsp.ftp.ReplyCode;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.PathEscapeException;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A session's work off its event loop: file work and login checks on their executors, each answered back on the
 * loop, and the one read of a whole file that ABOR may cancel. Its state is read and written on the loop only.
 */
final class OffLoopWork {
    private static final Logger log = LoggerFactory.getLogger(FtpSession.class);

    private final FtpSession session;
    private final FtpServerContext server;
    private final ChannelHandlerContext ctx;
    private WholeFileRead wholeFileRead;

    OffLoopWork(FtpSession session, FtpServerContext server, ChannelHandlerContext ctx) {
        this.session = session;
        this.server = server;
        this.ctx = ctx;
    }

    /**
     * Runs {@code work} on the file-work executor, then {@code then} with its result on the event loop. A
     * failure is answered with {@link Replies#forFailure} about {@code about}, after {@code onFailure} ran (on the
     * loop). A result that is {@link AutoCloseable} is closed if the connection went away meanwhile (and
     * {@code onFailure} runs).
     */
    <T> void blocking(FtpPath about, Callable<T> work, Consumer<T> then, Runnable onFailure) {
        submit(server.blocking(), about, work, then, onFailure, () -> {
            onFailure.run();
            session.reply(new FtpReply(ReplyCode.FILE_BUSY, "Server busy; try again later"));
        });
    }

    /**
     * Checks a login on the login executor (its own threads, so that file work never delays a login), then
     * {@code then} on the loop. When every login thread and queue slot is taken the connection is answered 421
     * and closed.
     */
    <T> void checkLogin(Callable<T> work, Consumer<T> then) {
        submit(server.logins(), FtpPath.ROOT, work, then, () -> { },
                () -> session.replyAndClose(Replies.serviceNotAvailable("Too many logins in progress; try again later")));
    }

    /**
     * Runs a read of a whole file (a checksum command, SIZE in ASCII) as
     * {@link #blocking} does, but cancellable: ABOR answers it {@code 426} and a disconnect stops it (the reading thread is
     * interrupted). One such read per session at a time, counting a cancelled one until its thread let go.
     */
    <T> void wholeFileRead(FtpPath about, Callable<T> work, Consumer<T> then) {
        if (wholeFileRead != null) {
            session.reply(new FtpReply(ReplyCode.FILE_BUSY, "A cancelled read of a file is still ending; try again"));
            return;
        }
        WholeFileRead running = new WholeFileRead();
        wholeFileRead = running;
        Callable<T> tracked = () -> {
            synchronized (running) {
                running.thread = Thread.currentThread();
            }
            try {
                if (running.cancelled) {
                    throw new java.util.concurrent.CancellationException();
                }
                return work.call();
            } finally {
                synchronized (running) {
                    running.thread = null;
                    Thread.interrupted(); // an interrupt meant for this read must not reach the pool's next task
                }
                ctx.executor().execute(() -> {
                    if (wholeFileRead == running) {
                        wholeFileRead = null;
                    }
                });
            }
        };
        submit(server.blocking(), about, tracked, result -> {
            if (!running.cancelled) {
                then.accept(result);
            }
        }, () -> { }, () -> {
            wholeFileRead = null;
            session.reply(new FtpReply(ReplyCode.FILE_BUSY, "Server busy; try again later"));
        }, running);
    }

    /** Whether a read of a whole file runs that ABOR may cancel. */
    boolean wholeFileReadRunning() {
        return wholeFileRead != null && !wholeFileRead.cancelled;
    }

    /** ABOR of a running whole-file read: answers it 426 at once; its thread stops at its next read. */
    void cancelWholeFileRead() {
        WholeFileRead running = wholeFileRead;
        if (running != null && !running.cancelled) {
            running.cancel();
            session.reply(new FtpReply(ReplyCode.TRANSFER_ABORTED, "Aborted"));
        }
    }

    /** A read of a whole file in progress; {@code thread} is set while a pool thread runs it. */
    private static final class WholeFileRead {
        volatile boolean cancelled;
        Thread thread;

        synchronized void cancel() {
            cancelled = true;
            if (thread != null) {
                thread.interrupt();
            }
        }
    }

    private <T> void submit(ExecutorService executor, FtpPath about, Callable<T> work, Consumer<T> then,
                            Runnable onFailure, Runnable onRejected) {
        submit(executor, about, work, then, onFailure, onRejected, null);
    }

    /**
     * Every outcome is answered: an exception or error in {@code work} with a 4xx/5xx reply (the session goes
     * on: {@code work} runs off the loop and changes no session state), one in {@code then} with 451, or with
     * 421 and a close when it is an {@link Error} (what {@code then} changed before it failed is unknown).
     */
    private <T> void submit(ExecutorService executor, FtpPath about, Callable<T> work, Consumer<T> then,
                            Runnable onFailure, Runnable onRejected, WholeFileRead cancellable) {
        try {
            executor.execute(() -> {
                T result;
                try {
                    result = work.call();
                } catch (Throwable e) {
                    if (cancellable != null && cancellable.cancelled) {
                        log.debug("{} {}: stopped ({})", session, about, e.toString());
                        return; // already answered by ABOR, or the connection is gone
                    }
                    logFailure(about, e);
                    ctx.executor().execute(() -> {
                        onFailure.run();
                        session.reply(e instanceof Exception ex ? Replies.forFailure(about, ex) : Replies.localError());
                    });
                    return;
                }
                ctx.executor().execute(() -> {
                    if (!ctx.channel().isActive()) {
                        closeQuietly(result);
                        onFailure.run(); // releases what the command took, such as its data connection
                        return;
                    }
                    try {
                        then.accept(result);
                    } catch (Throwable e) {
                        log.warn("{} internal error after {}", session, about, e);
                        closeQuietly(result);
                        onFailure.run();
                        if (e instanceof Error) {
                            session.replyAndClose(Replies.serviceNotAvailable("Internal error; closing control connection"));
                        } else {
                            session.reply(Replies.localError());
                        }
                    }
                });
            });
        } catch (RejectedExecutionException e) {
            onRejected.run();
        }
    }

    private void logFailure(FtpPath about, Throwable e) {
        if (e instanceof Error) {
            log.error("{} {}: {}", session, about, e.toString(), e);
        } else if (e instanceof FtpReplyException || e instanceof PathEscapeException
                || e instanceof java.nio.file.FileSystemException) {
            log.debug("{} {}: {}", session, about, e.toString());
        } else {
            log.warn("{} {}: {}", session, about, e.toString(), e);
        }
    }

    private static void closeQuietly(Object o) {
        if (o instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception ignored) {
                // nothing more to do with a resource nobody will use
            }
        }
    }

    /** The connection closed: a running whole-file read stops. */
    void closed() {
        if (wholeFileRead != null) {
            wholeFileRead.cancel();
        }
    }
}

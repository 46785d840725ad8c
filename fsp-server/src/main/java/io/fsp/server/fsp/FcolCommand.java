package io.fsp.server.fsp;

import io.fsp.client.collect.CollectSummary;
import io.fsp.client.collect.RecordedTransfer;
import io.fsp.client.control.ControlException;
import io.fsp.client.write.DestinationLock;
import io.fsp.client.write.UnsafePathException;
import io.fsp.config.Durations;
import io.fsp.ftp.ReplyCode;
import io.fsp.server.collect.AnnouncementReceiver;
import io.fsp.server.collect.AnnouncementStream;
import io.fsp.server.collect.CollectionSlots;
import io.fsp.server.collect.ServerCollection;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.DataConnection;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpReplyException;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.server.ftp.command.CommandPaths;
import io.fsp.server.ftp.data.DataTransfers;
import io.fsp.server.ftp.data.LocalFileException;
import io.fsp.server.select.CollectRelays;
import io.fsp.server.stripe.StripeContext;
import io.fsp.token.TransferId;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code FCOL <path>} — FSP extension (docs/protocol.md §1, "FCOL"): the receiving end of a third-party transfer
 * ({@code fsp transfer}, paper 004 §3.6). The client sends, on a data connection prepared as for STOR, the
 * announcements another server gave it for a FRET (its key, token, relays and digests: hence TLS on both
 * channels); once that stream ends this server collects the transfer from those relays into {@code <path>} in the
 * user's root and checks every block on its disk against its digest. Replies {@code 150}, then {@code 112} perf
 * markers every second with the bytes verified so far, then {@code 226} with the summary once every file is
 * verified, or a 4xx/5xx naming what failed. The stream may name only relays this server's operator allows
 * ({@link io.fsp.server.select.CollectRelays}); any other is refused {@code 550} before anything is connected. A
 * collection runs at most {@code collect-timeout}; however it ends (an {@link Error} too), its slot and relay
 * connections are given back.
 */
final class FcolCommand extends FspExtensionCommand {
    private static final Logger log = LoggerFactory.getLogger(FcolCommand.class);
    /**
     * The longest announcement stream: at about 110 bytes a BLK line, 150 000 blocks (150 GB at the default block
     * size, 2.4 TB at 16 MiB), held parsed while the collection runs, a few times its text in memory.
     */
    static final long MAX_STREAM_BYTES = 16L << 20;
    static final int MAX_PER_SERVER = 4;
    static final int MAX_PER_USER = 2;
    private static final long MARKER_SECONDS = 1;

    /** Collections running on this server (one command object per server). */
    private final CollectionSlots slots = new CollectionSlots(MAX_PER_SERVER, MAX_PER_USER);

    /** Where each collection's work directory is made. */
    private final Path works;
    private final Duration timeout;

    FcolCommand(StripeContext stripe, Path works, Duration timeout) {
        super(stripe);
        this.works = works;
        this.timeout = timeout;
    }

    @Override
    public String verb() {
        return "FCOL";
    }

    @Override
    public String syntax() {
        return "FCOL <path>";
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        Optional<FtpPath> resolved = CommandPaths.required(session, request, this);
        if (resolved.isEmpty() || !CommandPaths.writable(session)) {
            return;
        }
        FtpPath path = resolved.get();
        Optional<DataConnection> connection = session.takeDataConnectionOrReply();
        if (connection.isEmpty()) {
            return;
        }
        if (stripe.requireTls() && !session.protectData()) {
            connection.get().close();
            session.reply(new FtpReply(ReplyCode.SECURITY_POLICY_REFUSED, "FCOL needs PROT P: the announcements carry the"
                    + " transfer's key and token"));
            return;
        }
        String user = session.user().orElseThrow().name();
        String busy = slots.tryTake(user);
        if (busy != null) {
            connection.get().close();
            session.reply(new FtpReply(ReplyCode.FILE_BUSY, "FCOL: " + busy + "; try again later"));
            return;
        }
        // One run at a time into a destination: a second FCOL, a STOR there, or a local fsp get is refused meanwhile.
        // Off the loop: the lock's file, and the names of the server's relay lines, resolved for the stream's check.
        session.blocking(path, () -> new Taken(CollectionLocks.take(session.root(), path, "FCOL by " + user),
                        stripe.collectRelays()),
                taken -> start(session, connection.get(), path, user, new Hold(taken.lock()), taken.relays()), () -> {
                    slots.release(user);
                    connection.get().close();
                });
    }

    /** What FCOL takes before it answers 150; closing it gives the lock back (a session gone meanwhile). */
    private record Taken(DestinationLock lock, CollectRelays relays) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            lock.close();
        }
    }

    private void start(FtpSession session, DataConnection connection, FtpPath path, String user, Hold hold,
                       CollectRelays relays) {
        String[] summary = new String[1]; // the 226 text, set before the collection's future succeeds
        Path work = works.resolve(TransferId.random().toString());
        DataTransfers.run(session, connection, path, "Ready for the announcements of a transfer into "
                + Replies.quote(path), true, (ch, tls, transfer) -> {
                    Promise<RecordedTransfer> received = ch.eventLoop().newPromise();
                    Promise<Long> collected = ch.eventLoop().newPromise();
                    // collect-timeout counts from here: a stream sent slowly holds the slot no longer than a collection
                    AtomicBoolean late = new AtomicBoolean();
                    Thread[] runner = new Thread[1]; // set and read on ch's event loop only
                    ScheduledFuture<?> deadline = ch.eventLoop().schedule(() -> {
                        late.set(true);
                        if (runner[0] != null) {
                            runner[0].interrupt();
                        } else {
                            collected.tryFailure(tooLate(timeout));
                            ch.close();
                        }
                    }, timeout.toNanos(), TimeUnit.NANOSECONDS);
                    collected.addListener(c -> deadline.cancel(false));
                    ch.pipeline().addLast("announcements", new AnnouncementReceiver(new AnnouncementStream(
                            MAX_STREAM_BYTES, stripe.maxBlocksPerTransfer(), relays), received));
                    received.addListener(f -> {
                        if (!f.isSuccess()) {
                            collected.tryFailure(f.cause() instanceof AnnouncementStream.RelayNotAllowedException e
                                    ? new FtpReplyException(ReplyCode.FILE_UNAVAILABLE, "FCOL: " + e.getMessage())
                                    : f.cause() instanceof IllegalArgumentException e
                                    ? new FtpReplyException(ReplyCode.SYNTAX_ERROR_IN_ARGUMENTS, "FCOL: " + e.getMessage())
                                    : f.cause());
                            return;
                        }
                        if (collected.isDone()) {
                            return; // past the deadline already
                        }
                        try {
                            ServerCollection collection = new ServerCollection(session.root(), path,
                                    (RecordedTransfer) f.getNow(), work);
                            if (!hold.share()) {
                                // the command has ended meanwhile: nothing runs without the lock
                                collected.tryFailure(new java.util.concurrent.CancellationException("ended"));
                                return;
                            }
                            Thread t = new Thread(() -> collect(session, path, collection, hold, collected, summary,
                                    late, timeout), "fsp-fcol");
                            t.setDaemon(true);
                            ScheduledFuture<?> markers = session.channel().eventLoop().scheduleAtFixedRate(() -> {
                                if (transfer.isAborted() || !session.channel().isActive()) {
                                    t.interrupt();
                                } else if (!collected.isDone() && session.channel().isWritable()) {
                                    // a client that does not read its markers gets fewer, not a growing buffer
                                    session.reply(perfMarker(collection.bytesDone()));
                                }
                            }, MARKER_SECONDS, MARKER_SECONDS, TimeUnit.SECONDS);
                            collected.addListener(c -> markers.cancel(false));
                            runner[0] = t;
                            t.start();
                        } catch (RuntimeException | Error e) {
                            collected.tryFailure(e); // the slot goes back
                            throw e;
                        }
                    });
                    return collected;
                }, ok -> {
                    slots.release(user);
                    hold.release();
                }, bytes -> new FtpReply(ReplyCode.TRANSFER_COMPLETE, summary[0]));
    }

    /**
     * The destination's lock, given back once both the command and its collection thread (if one started) have
     * ended: a thread still winding down after an abort keeps the destination from the next run.
     */
    private static final class Hold {
        private final DestinationLock lock;
        private int holders = 1;

        Hold(DestinationLock lock) {
            this.lock = lock;
        }

        /** Another holder (the collection thread); false if the lock was given back already. */
        synchronized boolean share() {
            if (holders == 0) {
                return false;
            }
            holders++;
            return true;
        }

        void release() {
            synchronized (this) {
                if (holders == 0 || --holders > 0) {
                    return;
                }
            }
            try {
                lock.close();
            } catch (IOException e) {
                log.warn("FCOL: giving back the destination's lock: {}", e.toString());
            }
        }
    }

    /**
     * Runs the collection on this thread and completes {@code collected} whatever happens: the slot and the reply
     * follow from it. The thread's share of the destination's lock is given back first.
     */
    private static void collect(FtpSession session, FtpPath path, ServerCollection collection, Hold hold,
                                Promise<Long> collected, String[] summary, AtomicBoolean late, Duration timeout) {
        try {
            CollectSummary s;
            try {
                s = collection.run();
            } finally {
                hold.release(); // before the reply: a run started once this one is answered finds the lock free
            }
            if (!s.complete()) {
                collected.tryFailure(late.get() ? tooLate(timeout) : new FtpReplyException(ReplyCode.LOCAL_ERROR,
                        "FCOL: " + s.error() + "; nothing of the transfer is reported verified"));
                return;
            }
            summary[0] = (String.format(Locale.ROOT, "FCOL complete: %d files, %d bytes, %d blocks verified on disk"
                    + " (%s) in %.1f s", s.files(), s.bytes(), s.blocks(), s.verifyMode(), s.seconds()));
            collected.trySuccess(s.bytes());
        } catch (ServerCollection.NotOnRelaysException e) {
            collected.tryFailure(new FtpReplyException(ReplyCode.FILE_UNAVAILABLE, e.getMessage()));
        } catch (ControlException | UnsafePathException e) {
            collected.tryFailure(new FtpReplyException(e instanceof UnsafePathException ? ReplyCode.FILE_NAME_NOT_ALLOWED
                    : ReplyCode.SYNTAX_ERROR_IN_ARGUMENTS, "FCOL: " + e.getMessage()));
        } catch (IOException e) {
            collected.tryFailure(new LocalFileException(e));
        } catch (InterruptedException e) {
            collected.tryFailure(late.get() ? tooLate(timeout) : new java.util.concurrent.CancellationException("aborted"));
        } catch (RuntimeException | Error e) {
            log.warn("{} FCOL {} failed", session, path, e);
            collected.tryFailure(e);
        } finally {
            collected.tryFailure(new IllegalStateException("FCOL ended without an outcome")); // the slot goes back
        }
    }

    private static FtpReplyException tooLate(Duration timeout) {
        return new FtpReplyException(ReplyCode.LOCAL_ERROR, "FCOL: not done within " + Durations.format(timeout)
                + " (collect-timeout); nothing of the transfer is reported verified");
    }

    /** GridFTP's perf marker (GFD.20 §3.7), one stripe: the bytes verified on this server's disk so far. */
    static FtpReply perfMarker(long bytes) {
        long now = System.currentTimeMillis();
        return new FtpReply(ReplyCode.PERF_MARKER, List.of("Perf Marker",
                String.format(Locale.ROOT, " Timestamp: %d.%d", now / 1000, (now % 1000) / 100),
                " Stripe Index: 0", " Stripe Bytes Transferred: " + bytes, " Total Stripe Count: 1", "End."));
    }
}

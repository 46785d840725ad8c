package io.fsp.server.ftp;

import io.fsp.ftp.ReplyCode;
import io.fsp.server.auth.UserAccount;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.PathEscapeException;
import io.fsp.server.fs.UserRoot;
import io.fsp.server.metrics.ServerMetrics;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.util.concurrent.Future;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state of one control connection, in typed fields. Every field is read and written on the control
 * channel's event loop only (data channels share that loop), so nothing here is synchronised; work that
 * blocks goes through {@link #blocking} and comes back to the loop with its result.
 */
public final class FtpSession {
    private static final Logger log = LoggerFactory.getLogger(FtpSession.class);
    private static final SecureRandom IDS = new SecureRandom();
    /** Replies from other threads queued for the loop before {@link #awaitReplyRoom} waits, at most. */
    static final int MAX_REPLIES_IN_FLIGHT = 128;
    private static final long WAIT_STEP_MILLIS = 200;
    /** How long a last reply may wait for a peer that does not read it before the connection is closed anyway. */
    static final long CLOSE_LINGER_SECONDS = 5;

    private final FtpServerContext server;
    private final ChannelHandlerContext ctx;
    private final FtpControlHandler handler;
    private final String id;

    private String pendingUser;
    private UserAccount user;
    private UserRoot root;
    private int failedLogins;
    private FtpPath cwd = FtpPath.ROOT;
    private TransferType type = TransferType.ASCII;
    private long restOffset;
    private FtpPath renameFrom;
    private DataConnection dataConnection;
    private boolean epsvAll;
    private boolean protectionBufferSizeSet;
    private boolean protectData;
    private HashAlgorithm hashAlgorithm = HashAlgorithm.SHA_256;
    private FileRange hashRange;
    private final ChecksumAllowance checksumAllowance;
    private RunningTransfer transfer;
    private final OffLoopWork offLoop;
    /** Replies sent from other threads and not yet handed to the channel; see {@link #awaitReplyRoom}. */
    private final AtomicInteger repliesQueued = new AtomicInteger();
    private final Queue<FtpReply> queuedReplies = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Object replyRoom = new Object();

    FtpSession(FtpServerContext server, ChannelHandlerContext ctx, FtpControlHandler handler) {
        this.server = server;
        this.ctx = ctx;
        this.handler = handler;
        this.checksumAllowance = new ChecksumAllowance(server.config().checksumRate(), server.config().checksumBurst(),
                System::nanoTime);
        byte[] b = new byte[2];
        IDS.nextBytes(b);
        this.id = HexFormat.of().formatHex(b);
        this.offLoop = new OffLoopWork(this, server, ctx);
    }

    // --- replies and threads -------------------------------------------------------------------------

    /**
     * Sends a reply. A final reply (2yz–5yz) ends the command being executed; a preliminary one (1yz)
     * leaves it running, as a transfer does between 150 and 226. Safe to call from any thread.
     */
    public void reply(FtpReply reply) {
        if (!ctx.executor().inEventLoop()) {
            // Replies from other threads (a striped transfer's announcements) go out together: one task and one
            // flush, so one TLS record and one write, for as many as came meanwhile.
            repliesQueued.incrementAndGet();
            queuedReplies.add(reply);
            if (drainScheduled.compareAndSet(false, true)) {
                ctx.executor().execute(this::drainQueuedReplies);
            }
            return;
        }
        if (!queuedReplies.isEmpty()) {
            drainQueuedReplies(); // made earlier on another thread: they go first
        }
        send(reply);
        ctx.flush();
    }

    private void drainQueuedReplies() {
        drainScheduled.set(false);
        for (FtpReply r; (r = queuedReplies.poll()) != null; ) {
            repliesQueued.decrementAndGet();
            send(r);
        }
        ctx.flush();
        writabilityChanged();
    }

    private void send(FtpReply reply) {
        log.debug("{} < {}", this, reply);
        ctx.write(reply);
        if (!reply.isPreliminary()) {
            handler.commandDone();
        }
    }

    /**
     * Waits, on a thread that may wait (never an event loop), while the peer is not reading its replies: the
     * channel is not writable, or {@link #MAX_REPLIES_IN_FLIGHT} replies sent from other threads are not yet
     * written. A producer of replies (the striping engine's announcements) calls it before making more, so a
     * client that stops reading holds the producer back instead of filling the server's memory. Returns false
     * once the connection closed or the thread was interrupted.
     */
    public boolean awaitReplyRoom() {
        synchronized (replyRoom) {
            while (!ctx.channel().isWritable() || repliesQueued.get() >= MAX_REPLIES_IN_FLIGHT) {
                if (!ctx.channel().isActive()) {
                    return false;
                }
                try {
                    replyRoom.wait(WAIT_STEP_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return true;
    }

    /** Called on the loop when the channel's writability changed or a queued reply was written. */
    void writabilityChanged() {
        synchronized (replyRoom) {
            replyRoom.notifyAll();
        }
    }

    /**
     * Sends a last reply and closes the control connection once it is written, or after
     * {@link #CLOSE_LINGER_SECONDS} if the peer does not read it.
     */
    public void replyAndClose(FtpReply reply) {
        if (!ctx.executor().inEventLoop()) {
            ctx.executor().execute(() -> replyAndClose(reply));
            return;
        }
        log.debug("{} < {} (closing)", this, reply);
        handler.closing();
        ctx.writeAndFlush(reply).addListener(ChannelFutureListener.CLOSE);
        // the peer does not read: the reply is lost, the connection is not
        Future<?> linger = ctx.executor().schedule(() -> ctx.close(), CLOSE_LINGER_SECONDS,
                TimeUnit.SECONDS);
        ctx.channel().closeFuture().addListener(f -> linger.cancel(false));
    }

    /**
     * Runs {@code work} on the file-work executor, then {@code then} with its result on the event loop. A failure is
     * answered with {@link Replies#forFailure} about {@code about}. A result that is {@link AutoCloseable} is closed
     * if the connection went away meanwhile.
     */
    public <T> void blocking(FtpPath about, Callable<T> work, Consumer<T> then) {
        offLoop.blocking(about, work, then, () -> { });
    }

    /** As {@link #blocking(FtpPath, Callable, Consumer)}, running {@code onFailure} (on the loop) if {@code work} fails. */
    public <T> void blocking(FtpPath about, Callable<T> work, Consumer<T> then, Runnable onFailure) {
        offLoop.blocking(about, work, then, onFailure);
    }

    /**
     * Checks a login on the login executor (its own threads, so that file work never delays a login), then
     * {@code then} on the loop; with every login thread and queue slot taken, answers 421 and closes.
     */
    public <T> void checkLogin(Callable<T> work, Consumer<T> then) {
        offLoop.checkLogin(work, then);
    }

    /**
     * Runs a read of a whole file (a checksum command, SIZE in ASCII) as {@link #blocking(FtpPath, Callable, Consumer)}
     * does, but cancellable: ABOR answers it {@code 426} and a disconnect stops it. One at a time per session.
     */
    public <T> void wholeFileRead(FtpPath about, Callable<T> work, Consumer<T> then) {
        offLoop.wholeFileRead(about, work, then);
    }

    /** Whether a read of a whole file runs that ABOR may cancel. */
    public boolean wholeFileReadRunning() {
        return offLoop.wholeFileReadRunning();
    }

    /** ABOR of a running whole-file read: answers it 426 at once; its thread stops at its next read. */
    public void cancelWholeFileRead() {
        offLoop.cancelWholeFileRead();
    }

    // --- identity and login ----------------------------------------------------------------------------

    public FtpServerContext server() {
        return server;
    }

    public Channel channel() {
        return ctx.channel();
    }

    public String id() {
        return id;
    }

    public InetSocketAddress peerAddress() {
        return (InetSocketAddress) ctx.channel().remoteAddress();
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) ctx.channel().localAddress();
    }

    public Optional<String> pendingUser() {
        return Optional.ofNullable(pendingUser);
    }

    public void pendingUser(String name) {
        this.pendingUser = name;
    }

    public boolean isLoggedIn() {
        return user != null;
    }

    public Optional<UserAccount> user() {
        return Optional.ofNullable(user);
    }

    /** Where the bytes sent for this session's user on {@code path} are counted ({@link ServerMetrics#sent}). */
    public ServerMetrics.Sent sent(String path) {
        return server.metrics().sent(path, user == null ? null : user.name());
    }

    /** The logged-in user's root; call only after login. */
    public UserRoot root() {
        if (root == null) {
            throw new IllegalStateException("not logged in");
        }
        return root;
    }

    public void loggedIn(UserAccount account, UserRoot userRoot) {
        this.user = account;
        this.root = userRoot;
        this.pendingUser = null;
        this.cwd = FtpPath.ROOT;
    }

    public boolean isWritable() {
        return user != null && user.writable();
    }

    /** Counts a failed login and returns how many this connection has had. */
    public int loginFailed() {
        return ++failedLogins;
    }

    // --- paths -----------------------------------------------------------------------------------------

    public FtpPath cwd() {
        return cwd;
    }

    public void cwd(FtpPath dir) {
        this.cwd = dir;
    }

    /** Resolves a command's path argument against the working directory. */
    public FtpPath resolve(String argument) throws PathEscapeException {
        return cwd.resolve(argument);
    }

    public Optional<FtpPath> renameFrom() {
        return Optional.ofNullable(renameFrom);
    }

    public void renameFrom(FtpPath from) {
        this.renameFrom = from;
    }

    // --- transfer parameters ---------------------------------------------------------------------------

    public TransferType type() {
        return type;
    }

    public void type(TransferType t) {
        this.type = t;
    }

    public void restOffset(long offset) {
        this.restOffset = offset;
    }

    /** The REST offset for the next transfer, cleared once taken. */
    public long takeRestOffset() {
        long r = restOffset;
        restOffset = 0;
        return r;
    }

    public HashAlgorithm hashAlgorithm() {
        return hashAlgorithm;
    }

    public void hashAlgorithm(HashAlgorithm a) {
        this.hashAlgorithm = a;
    }

    /** The range RANG set for the HASH right after it; empty for the whole file. */
    public Optional<FileRange> hashRange() {
        return Optional.ofNullable(hashRange);
    }

    /** Sets (RANG) or clears (null) the range of the next HASH. */
    public void hashRange(FileRange range) {
        this.hashRange = range;
    }

    /** What this connection's checksum commands may still read (checksum-rate, checksum-burst). */
    public ChecksumAllowance checksumAllowance() {
        return checksumAllowance;
    }

    public boolean epsvAll() {
        return epsvAll;
    }

    public void epsvAll(boolean on) {
        this.epsvAll = on;
    }

    /** Replaces the prepared data connection (PASV, EPSV, PORT, EPRT), closing the previous one. */
    public void dataConnection(DataConnection connection) {
        if (dataConnection != null) {
            dataConnection.close();
        }
        this.dataConnection = connection;
    }

    /** The prepared data connection, now owned by the caller; empty if none was prepared. */
    public Optional<DataConnection> takeDataConnection() {
        DataConnection d = dataConnection;
        dataConnection = null;
        return Optional.ofNullable(d);
    }

    /** As {@link #takeDataConnection}, after replying 425 if none was prepared. */
    public Optional<DataConnection> takeDataConnectionOrReply() {
        Optional<DataConnection> d = takeDataConnection();
        if (d.isEmpty()) {
            reply(Replies.noDataConnection());
        }
        return d;
    }

    public Optional<RunningTransfer> transfer() {
        return Optional.ofNullable(transfer);
    }

    public void transfer(RunningTransfer t) {
        this.transfer = t;
    }

    // --- TLS -------------------------------------------------------------------------------------------

    /** Whether the control channel is encrypted (after AUTH TLS). */
    public boolean isSecure() {
        return ctx.pipeline().get(SslHandler.class) != null;
    }

    /** The control channel's TLS session, once its handshake is done. */
    public Optional<SSLSession> tlsSession() {
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        return ssl == null || !ssl.handshakeFuture().isSuccess()
                ? Optional.empty() : Optional.of(ssl.engine().getSession());
    }

    public boolean protectionBufferSizeSet() {
        return protectionBufferSizeSet;
    }

    public void protectionBufferSizeSet(boolean set) {
        this.protectionBufferSizeSet = set;
    }

    /** PROT P: data channels use TLS. */
    public boolean protectData() {
        return protectData;
    }

    public void protectData(boolean on) {
        this.protectData = on;
    }

    /** Called once the control channel closed: releases data connections and stops a running transfer. */
    void closed() {
        if (dataConnection != null) {
            dataConnection.close();
            dataConnection = null;
        }
        if (transfer != null) {
            transfer.abort(false);
        }
        offLoop.closed();
        writabilityChanged(); // a producer waiting in awaitReplyRoom sees the close
    }

    /** {@code [c7f2 alice@127.0.0.1]}: the prefix of every log line about this session. */
    @Override
    public String toString() {
        InetSocketAddress peer = peerAddress();
        String who = user != null ? user.name() : pendingUser != null ? pendingUser + "?" : "-";
        return "[" + id + " " + who + "@" + (peer == null ? "?" : io.netty.util.NetUtil.toAddressString(peer.getAddress())) + "]";
    }
}

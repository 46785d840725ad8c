package io.fsp.server.ftp;

import io.fsp.server.auth.UserAccount;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.PathEscapeException;
import io.fsp.server.fs.UserRoot;
import io.fsp.server.ftp.data.DataConnection;
import io.fsp.server.ftp.data.Transfer;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.RejectedExecutionException;
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
    private Transfer transfer;

    FtpSession(FtpServerContext server, ChannelHandlerContext ctx, FtpControlHandler handler) {
        this.server = server;
        this.ctx = ctx;
        this.handler = handler;
        byte[] b = new byte[2];
        IDS.nextBytes(b);
        this.id = HexFormat.of().formatHex(b);
    }

    // --- replies and threads -------------------------------------------------------------------------

    /**
     * Sends a reply. A final reply (2yz–5yz) ends the command being executed; a preliminary one (1yz)
     * leaves it running, as a transfer does between 150 and 226. Safe to call from any thread.
     */
    public void reply(FtpReply reply) {
        if (!ctx.executor().inEventLoop()) {
            ctx.executor().execute(() -> reply(reply));
            return;
        }
        log.debug("{} < {}", this, reply);
        ctx.writeAndFlush(reply);
        if (!reply.isPreliminary()) {
            handler.commandDone();
        }
    }

    /** Sends a last reply and closes the control connection once it is written. */
    public void replyAndClose(FtpReply reply) {
        if (!ctx.executor().inEventLoop()) {
            ctx.executor().execute(() -> replyAndClose(reply));
            return;
        }
        log.debug("{} < {} (closing)", this, reply);
        handler.closing();
        ctx.writeAndFlush(reply).addListener(ChannelFutureListener.CLOSE);
    }

    /**
     * Runs {@code work} on the blocking executor, then {@code then} with its result on the event loop. A
     * failure is answered with {@link Replies#forFailure} about {@code about}. A result that is
     * {@link AutoCloseable} is closed if the connection went away meanwhile (and {@code onFailure} runs).
     */
    public <T> void blocking(FtpPath about, Callable<T> work, Consumer<T> then) {
        blocking(about, work, then, () -> { });
    }

    /** As {@link #blocking(FtpPath, Callable, Consumer)}, running {@code onFailure} (on the loop) if {@code work} fails. */
    public <T> void blocking(FtpPath about, Callable<T> work, Consumer<T> then, Runnable onFailure) {
        try {
            server.blocking().execute(() -> {
                T result;
                try {
                    result = work.call();
                } catch (Exception e) {
                    logFailure(about, e);
                    ctx.executor().execute(() -> {
                        onFailure.run();
                        reply(Replies.forFailure(about, e));
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
                    } catch (RuntimeException e) {
                        log.warn("{} internal error after {}", this, about, e);
                        closeQuietly(result);
                        onFailure.run();
                        reply(Replies.localError());
                    }
                });
            });
        } catch (RejectedExecutionException e) {
            onFailure.run();
            reply(new FtpReply(ReplyCode.FILE_BUSY, "Server busy; try again later"));
        }
    }

    private void logFailure(FtpPath about, Exception e) {
        if (e instanceof FtpReplyException || e instanceof PathEscapeException
                || e instanceof java.nio.file.FileSystemException) {
            log.debug("{} {}: {}", this, about, e.toString());
        } else {
            log.warn("{} {}: {}", this, about, e.toString(), e);
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

    public Optional<Transfer> transfer() {
        return Optional.ofNullable(transfer);
    }

    public void transfer(Transfer t) {
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
    }

    /** {@code [c7f2 alice@127.0.0.1]}: the prefix of every log line about this session. */
    @Override
    public String toString() {
        InetSocketAddress peer = peerAddress();
        String who = user != null ? user.name() : pendingUser != null ? pendingUser + "?" : "-";
        return "[" + id + " " + who + "@" + (peer == null ? "?" : io.netty.util.NetUtil.toAddressString(peer.getAddress())) + "]";
    }
}

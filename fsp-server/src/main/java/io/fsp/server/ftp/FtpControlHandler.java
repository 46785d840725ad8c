package io.fsp.server.ftp;

import io.fsp.ftp.ReplyCode;
import io.netty.channel.ChannelFutureListener;
import io.netty.util.concurrent.Future;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the commands of one control connection in order. A command may finish later than it starts (file
 * system work off the loop, a transfer between its 150 and 226 replies); requests that arrive meanwhile
 * wait in a short queue, and reading stops while the queue is full. Reading and executing also stop while
 * the channel is not writable (more than {@code control-write-buffer} bytes of replies unsent: the client
 * does not read them), so a connection holds a bounded amount of memory whatever its peer does. ABOR alone
 * is executed at once while a transfer or a read of a whole file (a checksum) runs (RFC 959 §4.1.3). Access
 * rules (530, 503) and unknown verbs (502) are handled by the registry before any command runs.
 */
public final class FtpControlHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(FtpControlHandler.class);
    /** Requests a client may send ahead of the replies; more stops reading from its socket. */
    static final int MAX_QUEUED = 32;

    private final FtpServerContext server;
    private final Queue<FtpRequestLine> queue = new ArrayDeque<>();
    private FtpSession session;
    private ChannelHandlerContext ctx;
    private int unansweredCommands;
    private boolean draining;
    private boolean closing;
    private boolean counted;

    public FtpControlHandler(FtpServerContext server) {
        this.server = server;
    }

    public FtpSession session() {
        return session;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        session = new FtpSession(server, ctx, this);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        InetSocketAddress peer = session.peerAddress();
        String refused = server.connectionLimits().tryAcquire(peer.getAddress());
        if (refused != null) {
            log.info("{} refused: {}", session, refused);
            server.metrics().connectionRefused();
            closing = true;
            ctx.writeAndFlush(Replies.serviceNotAvailable(refused)).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        counted = true;
        log.info("{} connected to {}", session, session.localAddress());
        ctx.writeAndFlush(new FtpReply(ReplyCode.READY, "FSP FTP server ready"));
        Duration grace = server.config().loginGraceTime();
        Future<?> graceTimer = ctx.executor().schedule(() -> {
            if (!session.isLoggedIn() && ctx.channel().isActive() && !closing) {
                log.info("{} not logged in within {} s; closing", session, grace.toSeconds());
                session.replyAndClose(Replies.serviceNotAvailable("Login grace time (" + grace.toSeconds()
                        + " s) over; closing control connection"));
            }
        }, grace.toMillis(), TimeUnit.MILLISECONDS);
        // A closed connection's timer would keep its session reachable until the grace time is over.
        ctx.channel().closeFuture().addListener(f -> graceTimer.cancel(false));
        ctx.read();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (counted) {
            server.connectionLimits().release(session.peerAddress().getAddress());
            log.info("{} disconnected", session);
        }
        queue.clear();
        session.closed();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            return;
        }
        FtpRequestLine line = (FtpRequestLine) msg;
        if (line instanceof FtpRequest r && r.verb().equals("ABOR")
                && (session.transfer().isPresent() || session.wholeFileReadRunning())) {
            dispatch(r); // out of band: it must reach the running transfer
            return;
        }
        queue.add(line);
        drain(); // ends by stopping reads at once (this read too) if the queue is full or replies wait
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        session.writabilityChanged();
        if (ctx.channel().isWritable()) {
            drain(); // what waited for the peer to read its replies
        } else {
            readIfRoom(ctx);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        readIfRoom(ctx);
        ctx.fireChannelReadComplete();
    }

    private void readIfRoom(ChannelHandlerContext ctx) {
        FtpRequestDecoder decoder = ctx.pipeline().get(FtpRequestDecoder.class);
        boolean room = queue.size() < MAX_QUEUED && !closing && ctx.channel().isWritable()
                && (decoder == null || !decoder.heldAtAuth());
        ctx.channel().config().setAutoRead(room);
    }

    /** Called by the session when a command sent its final reply. */
    void commandDone() {
        if (unansweredCommands > 0) {
            unansweredCommands--;
        }
        drain();
    }

    /** Called when the connection is about to close: nothing more is executed. */
    void closing() {
        closing = true;
        queue.clear();
    }

    private void drain() {
        if (draining) {
            return; // the loop below picks up what the nested call would have
        }
        draining = true;
        try {
            while (!closing && unansweredCommands == 0 && !queue.isEmpty() && ctx.channel().isWritable()) {
                FtpRequestLine line = queue.poll();
                if (line instanceof MalformedRequest m) {
                    log.debug("{} > (malformed) < {}", session, m.reply());
                    session.channel().writeAndFlush(m.reply());
                    continue;
                }
                dispatch((FtpRequest) line);
            }
        } finally {
            draining = false;
        }
        if (!closing) {
            readIfRoom(ctx);
        }
    }

    private void dispatch(FtpRequest request) {
        if (!request.verb().equals("AUTH")) {
            execute(request);
            return;
        }
        boolean wasSecure = session.isSecure();
        try {
            execute(request);
        } finally {
            FtpRequestDecoder decoder = ctx.pipeline().get(FtpRequestDecoder.class);
            int clear = decoder == null ? 0 : decoder.authAnswered(!wasSecure && session.isSecure());
            if (clear > 0) {
                // Sent before the handshake, so anyone on the path could have written it: never a command.
                log.warn("{} sent {} bytes in clear after AUTH TLS, before the TLS handshake; closing", session, clear);
                closing();
                ctx.close();
            }
        }
    }

    private void execute(FtpRequest request) {
        log.debug("{} > {}", session, request);
        unansweredCommands++;
        FtpCommand command = server.commands().find(request.verb()).orElse(null);
        if (command == null) {
            session.reply(Replies.notImplemented(request.verb()));
            return;
        }
        FtpReply refused = server.commands().checkAccess(command, session);
        if (refused != null) {
            session.reply(refused);
            return;
        }
        if (!command.verb().equals("RNTO")) {
            session.renameFrom(null); // RFC 959 §4.1.3: RNTO must follow RNFR immediately
        }
        if (!command.verb().equals("HASH")) {
            session.hashRange(null); // draft-bryan-ftp-range §4.3: RANG applies to the command right after it
        }
        try {
            command.execute(session, request);
        } catch (RuntimeException e) {
            log.warn("{} {} failed", session, request.verb(), e);
            session.reply(Replies.localError());
        } catch (Error e) {
            // What the command changed before it failed is unknown: end the session, not the server.
            log.error("{} {} failed", session, request.verb(), e);
            session.replyAndClose(Replies.serviceNotAvailable("Internal error; closing control connection"));
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent) {
            if (session.transfer().isEmpty() && unansweredCommands == 0 && !closing) {
                long seconds = server.config().idleTimeout().toSeconds();
                log.info("{} idle for {} s; closing", session, seconds);
                session.replyAndClose(Replies.serviceNotAvailable("Idle timeout (" + seconds + " s); closing control connection"));
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException || cause.getCause() instanceof javax.net.ssl.SSLException) {
            log.debug("{} connection error: {}", session, cause.toString());
        } else {
            log.warn("{} unexpected error; closing", session, cause);
        }
        ctx.close();
    }
}

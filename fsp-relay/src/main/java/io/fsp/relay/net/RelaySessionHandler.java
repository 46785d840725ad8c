package io.fsp.relay.net;

import io.fsp.relay.metrics.RelayMetrics;
import io.fsp.relay.store.BlockStore;
import io.fsp.relay.store.StoreException;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.fsp.relaylink.wire.RelayFrame;
import io.fsp.relaylink.wire.RelayFrameDecoder;
import io.fsp.relaylink.wire.RelayMessage;
import io.fsp.relaylink.wire.RelayRole;
import io.fsp.tls.Fingerprint;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TransferId;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.ReferenceCounted;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves one relay connection, one request at a time: reading stays paused (auto-read is off) while a
 * request is being served or the peer is not taking our writes, so a full store slows a pushing server
 * down and a slow client cannot make the relay buffer without bound. Bad frames get an ERROR and the
 * connection is closed; refused requests get an ERROR and the connection goes on, up to the policy's
 * {@code maxRefusals} for a peer without a trusted certificate. A peer must authenticate (a trusted server's
 * HELLO, or a token accepted) within the policy's {@code authTimeout} of being accepted, or it is closed.
 */
public final class RelaySessionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(RelaySessionHandler.class);
    /** Clear links one TLS connection may ask for: so there are never more clear links than TLS connections. */
    static final int MAX_BIND_REQUESTS = 1;

    private final BlockStore store;
    private final ConnectionPolicy policy;
    private final Runnable onAuthenticated;
    private final RelayMetrics metrics;
    /** What serves each frame a peer may send, filled by the jobs below. */
    private final Map<RelayFrame, Consumer<RelayMessage>> handlers = new EnumMap<>(RelayFrame.class);
    private final TransferRequests transfers;
    private final FetchRequests fetches;
    private final ArrayDeque<RelayMessage> inbox = new ArrayDeque<>();
    /** Shared with this connection's clear link, which may serve them from another event loop. */
    private Map<TransferId, CapabilityToken> tokens = new ConcurrentHashMap<>();
    private final ClearLinks links;
    /** On a clear link: what it acts for (its TLS connection's role, server and tokens); null on TLS. */
    private ClearLinks.Grant grant;
    private int bindRequests;
    /** When a frame last came in, on this connection or on the other of its pair (a TLS connection and its link). */
    private AtomicLong activity = new AtomicLong(System.nanoTime());
    private ChannelHandlerContext ctx;
    private String session = "[?]";
    private InetAddress peer;
    private RelayRole role;
    /** The certificate fingerprint of a SERVER peer. */
    private Fingerprint server;
    private boolean welcomed;
    private boolean busy;
    private boolean closing;
    private boolean authenticated;
    private int refusals;
    private ScheduledFuture<?> authDeadline;

    /**
     * @param onAuthenticated runs once, when the peer has shown its credentials
     * @param clients caps client connections holding tokens, shared by the relay's connections
     * @param pacing holds back GETs' blocks and PUTs' OKs to the relay's caps
     */
    RelaySessionHandler(BlockStore store, Clock clock, BlockCheck blockCheck, ReadBudget readBudget,
                        ConnectionPolicy policy, Runnable onAuthenticated, ClientAdmission clients,
                        RelayMetrics metrics, Pacing pacing, ClearLinks links) {
        this.links = links;
        this.metrics = metrics;
        this.policy = policy;
        this.onAuthenticated = onAuthenticated;
        this.store = store;
        on(RelayFrame.HELLO, RelayMessage.Hello.class, h -> fail(new RelayMessage.Error(0, RelayErrorCode.BAD_HANDSHAKE,
                "HELLO twice on one connection")));
        on(RelayFrame.BIND_REQUEST, RelayMessage.BindRequest.class, this::bindRequest);
        transfers = new TransferRequests(this, store, clock, metrics);
        transfers.register();
        new PutRequests(this, store, blockCheck, metrics, pacing).register();
        fetches = new FetchRequests(this, store, clock, readBudget, clients, metrics, pacing);
        fetches.register();
    }

    /** Serves {@code frame} with {@code handler}; {@code type} is the frame's message class. */
    <M extends RelayMessage> void on(RelayFrame frame, Class<M> type, Consumer<M> handler) {
        if (frame.message() != type) {
            throw new IllegalArgumentException(frame + " carries " + frame.message().getSimpleName() + ", not " + type);
        }
        handlers.put(frame, m -> handler.accept(type.cast(m)));
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        String id = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000) | 0x10000).substring(1);
        InetSocketAddress remote = (InetSocketAddress) ctx.channel().remoteAddress();
        peer = remote == null ? null : remote.getAddress();
        session = "[" + id + " " + (remote != null ? remote.getHostString() + ":" + remote.getPort() : "?") + "]";
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        authDeadline = ctx.executor().schedule(this::authTimedOut, policy.authTimeout().toMillis(),
                TimeUnit.MILLISECONDS);
        ctx.read(); // auto-read is off: the TLS handshake needs the first read
        ctx.fireChannelActive();
    }

    private void authTimedOut() {
        if (authenticated || closing) {
            return;
        }
        log.debug("{} not authenticated within {} ms: closing", session, policy.authTimeout().toMillis());
        if (welcomed) {
            fail(new RelayMessage.Error(0, RelayErrorCode.AUTH_TIMEOUT, "no trusted certificate and no token accepted"
                    + " within " + policy.authTimeout().toMillis() + " ms"));
        } else {
            closing = true; // still in the TLS handshake or before HELLO: nothing to say it with
            ctx.close();
        }
    }

    /** The peer showed credentials: it no longer counts against its address and has no deadline. */
    void authenticated() {
        if (!authenticated) {
            authenticated = true;
            authDeadline.cancel(false);
            onAuthenticated.run();
        }
    }

    /**
     * Makes this connection a clear link acting for {@code grant}'s TLS connection (called before its first frame): it
     * closes with that connection.
     */
    void bind(ClearLinks.Grant grant) {
        this.grant = grant;
        this.tokens = grant.tokens();
        this.activity = grant.activity();
        session = session.substring(0, session.length() - 1) + " clear]";
        grant.parent().closeFuture().addListener(f -> ctx.channel().close());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing || !(msg instanceof RelayMessage m)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        activity.set(System.nanoTime());
        inbox.add(m);
        serveNext();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        readIfIdle();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            serveNext();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closing = true;
        fetches.closed(peer);
        if (authDeadline != null) {
            authDeadline.cancel(false);
        }
        transfers.closed();
        inbox.forEach(ReferenceCountUtil::release);
        inbox.clear();
        ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof IdleStateEvent && !busy && !pairBusy()) {
            // A request waiting for space keeps its connection; silence otherwise ends it.
            log.debug("{} idle: closing", session);
            closing = true;
            ctx.close();
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** Whether this connection is one of a pair (a TLS connection and its link) whose other one had a frame lately. */
    private boolean pairBusy() {
        return (grant != null || bindRequests > 0) && System.nanoTime() - activity.get() < policy.idleTimeout().toNanos();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof DecoderException && !(cause.getCause() instanceof SSLException)) {
            if (role == RelayRole.SERVER) {
                log.info("{} bad frame: {}", session, cause.getMessage());
            } else {
                log.debug("{} bad frame: {}", session, cause.getMessage()); // anyone can send one: not worth the log
            }
            fail(new RelayMessage.Error(0, RelayErrorCode.BAD_FRAME, String.valueOf(cause.getMessage())));
        } else {
            log.debug("{} connection error: {}", session, cause.toString());
            closing = true;
            ctx.close();
        }
    }

    // ---------------------------------------------------------------- request loop

    private void serveNext() {
        while (!busy && !closing && !inbox.isEmpty() && ctx.channel().isWritable()) {
            RelayMessage m = inbox.poll();
            try {
                serve(m);
            } catch (RuntimeException e) {
                if (m instanceof ReferenceCounted r && r.refCnt() > 0) {
                    r.release(); // unless a handler passed the bytes on before failing
                }
                log.warn("{} internal error serving {}: {}", session, m, e.toString(), e);
                fail(new RelayMessage.Error(m.id(), RelayErrorCode.STORE_FAILED, "internal error"));
            }
        }
        readIfIdle();
    }

    private void readIfIdle() {
        if (!busy && !closing && inbox.isEmpty() && ctx.channel().isWritable()) {
            ctx.read();
        }
    }

    /** Runs {@code work}'s completion back on the event loop and then serves the next request. */
    <T> void await(CompletableFuture<T> work, BiConsumer<T, Throwable> then) {
        await(work, then, () -> { });
    }

    /** As above; {@code onAbandon} runs instead of {@code then} if the connection closed meanwhile. */
    <T> void await(CompletableFuture<T> work, BiConsumer<T, Throwable> then,
                           Runnable onAbandon) {
        busy = true;
        work.whenComplete((value, error) -> ctx.executor().execute(() -> {
            busy = false;
            if (closing) {
                if (value instanceof Optional<?> o && o.isPresent()) {
                    ReferenceCountUtil.release(o.get());
                }
                onAbandon.run();
                return;
            }
            then.accept(value, error);
            serveNext();
        }));
    }

    private void serve(RelayMessage m) {
        if (!welcomed) {
            hello(m);
            return;
        }
        RelayFrame frame = RelayFrame.of(m);
        if (grant != null && frame != RelayFrame.PUT_BLOCK && frame != RelayFrame.GET_BLOCK) {
            ReferenceCountUtil.release(m);
            fail(new RelayMessage.Error(0, RelayErrorCode.BAD_FRAME, "a clear link carries blocks only (PUT_BLOCK,"
                    + " GET_BLOCK); " + m.getClass().getSimpleName() + " goes over TLS"));
            return;
        }
        Consumer<RelayMessage> handler = handlers.get(frame);
        if (handler != null) {
            handler.accept(m);
        } else {
            ReferenceCountUtil.release(m);
            fail(new RelayMessage.Error(0, RelayErrorCode.BAD_FRAME,
                    "frame " + m.getClass().getSimpleName() + " is sent by relays, not to them"));
        }
    }

    private void hello(RelayMessage m) {
        ReferenceCountUtil.release(m);
        if (!(m instanceof RelayMessage.Hello h)) {
            fail(new RelayMessage.Error(0, RelayErrorCode.BAD_HANDSHAKE, "first frame must be HELLO"));
            return;
        }
        if (h.version() != RelayMessage.VERSION) {
            fail(new RelayMessage.Error(h.id(), RelayErrorCode.BAD_HANDSHAKE,
                    "version: " + h.version() + " (expected: " + RelayMessage.VERSION + ")"));
            return;
        }
        role = peerRole();
        welcomed = true;
        if (grant != null) {
            authenticated(); // the ticket came over the TLS connection it acts for
        }
        if (role == RelayRole.SERVER) {
            ctx.pipeline().get(RelayFrameDecoder.class).acceptBlocks();
            authenticated();
        }
        log.debug("{} hello as {}", session, role);
        reply(new RelayMessage.Welcome(h.id(), RelayMessage.VERSION, role));
    }

    /**
     * SERVER exactly when the TLS peer presented a certificate; the trust manager has pinned it. A clear link has the
     * role of the TLS connection it acts for.
     */
    private RelayRole peerRole() {
        if (grant != null) {
            server = grant.server();
            return grant.role();
        }
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        try {
            Certificate[] chain = ssl.engine().getSession().getPeerCertificates();
            server = Fingerprint.of((X509Certificate) chain[0]);
            return RelayRole.SERVER;
        } catch (SSLPeerUnverifiedException e) {
            return RelayRole.CLIENT;
        }
    }

    /**
     * Whether this server opened {@code transfer}, or nobody has (the store then answers as for any transfer that is not
     * open). Another server's transfer is refused as one that is not open here: a server learns nothing of the
     * transfers of others, not even that they exist.
     */
    boolean ownsTransfer(int msgId, TransferId transfer) {
        Optional<Fingerprint> owner = store.owner(transfer);
        if (owner.isPresent() && !owner.get().equals(server)) {
            log.info("{} server {} refused transfer {}: another server opened it", session, server, transfer);
            refuseNotOpen(msgId, transfer);
            return false;
        }
        return true;
    }

    /** What a request about a transfer that is not open here gets: the same words whatever the reason. */
    void refuseNotOpen(int msgId, TransferId transfer) {
        refuse(msgId, RelayErrorCode.UNKNOWN_TRANSFER, "transfer " + transfer + " is not open here");
    }

    /**
     * Grants a clear link for this connection's blocks (§3.7): only to a peer that has shown its credentials (a trusted
     * server, or a client with a token accepted), a few times per connection.
     */
    private void bindRequest(RelayMessage.BindRequest b) {
        if (!authenticated) {
            refuse(b.id(), RelayErrorCode.TOKEN_FOREIGN, "a clear link is granted to a trusted server or after a token"
                    + " was accepted (expected: AUTHORIZE first)");
            return;
        }
        if (++bindRequests > MAX_BIND_REQUESTS) {
            refuse(b.id(), RelayErrorCode.TOO_MANY_REQUESTS, "clear links: " + bindRequests + " asked on one connection"
                    + " (expected: <= " + MAX_BIND_REQUESTS + ")");
            return;
        }
        byte[] secret = io.fsp.relaylink.wire.ClearLink.random(io.fsp.relaylink.wire.ClearLink.SECRET_LENGTH);
        byte[] ticket = links.grant(role, server, tokens, secret, ctx.channel(), activity);
        log.debug("{} clear link granted", session);
        reply(new RelayMessage.BindGrant(b.id(), ticket, secret));
    }

    // ---------------------------------------------------------------- checks every job shares

    boolean requireServer(RelayMessage m) {
        if (role == RelayRole.SERVER) {
            return true;
        }
        ReferenceCountUtil.release(m);
        refuse(m.id(), RelayErrorCode.NOT_A_TRUSTED_SERVER,
                "only a server with a trusted certificate may do this (relay option --trust-server)");
        return false;
    }

    // ---------------------------------------------------------------- what the jobs see

    /** The peer's role, once welcomed. */
    RelayRole role() {
        return role;
    }

    /** The certificate fingerprint of a SERVER peer, else null. */
    Fingerprint server() {
        return server;
    }

    InetAddress peer() {
        return peer;
    }

    /** The tokens accepted on this connection (and its clear link), by transfer. */
    Map<TransferId, CapabilityToken> tokens() {
        return tokens;
    }

    /** Whether this connection is a clear link (§3.7). */
    boolean clearLink() {
        return grant != null;
    }

    EventExecutor executor() {
        return ctx.executor();
    }

    /** Writes {@code m} and tells {@code written} whether it went out; a failed write is the connection's error. */
    void send(RelayMessage m, Consumer<Boolean> written) {
        ctx.writeAndFlush(m).addListener(w -> {
            written.accept(w.isSuccess());
            if (!w.isSuccess()) {
                ctx.fireExceptionCaught(w.cause());
            }
        });
    }

    /** The session as its log lines name it: {@code [id host:port]}. */
    @Override
    public String toString() {
        return session;
    }

    // ---------------------------------------------------------------- replies

    void reply(RelayMessage m) {
        ctx.writeAndFlush(m).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
    }

    void refuse(int msgId, RelayErrorCode code, String text) {
        metrics.error(code);
        reply(new RelayMessage.Error(msgId, code, text));
        // A trusted server's refusals are its own affair; anyone else probing (tokens, blocks) is cut off.
        if (role != RelayRole.SERVER && ++refusals >= policy.maxRefusals()) {
            log.debug("{} {} requests refused: closing", session, refusals);
            fail(new RelayMessage.Error(0, RelayErrorCode.TOO_MANY_REFUSALS, refusals + " requests refused"
                    + " (expected: fewer than " + policy.maxRefusals() + ")"));
        }
    }

    void refuse(int msgId, Throwable error) {
        Throwable e = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
        if (e instanceof StoreException s) {
            refuse(msgId, StoreErrors.code(s), s.getMessage());
        } else if (e instanceof BadBlockException b) {
            refuse(msgId, RelayErrorCode.BAD_BLOCK, b.getMessage());
        } else {
            log.warn("{} internal error: {}", session, e.toString(), e);
            refuse(msgId, RelayErrorCode.STORE_FAILED, "internal error");
        }
    }

    /** Sends a last ERROR and closes: the connection cannot go on. */
    void fail(RelayMessage.Error error) {
        if (closing) {
            return;
        }
        closing = true;
        metrics.error(error.code());
        inbox.forEach(ReferenceCountUtil::release);
        inbox.clear();
        ctx.writeAndFlush(error).addListener(ChannelFutureListener.CLOSE);
    }
}

package io.fsp.relay.net;

import io.fsp.config.Durations;
import io.fsp.relay.metrics.RelayMetrics;
import io.fsp.relay.store.BlockStore;
import io.fsp.relay.store.StoreException;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.fsp.relaylink.wire.RelayFrameDecoder;
import io.fsp.relaylink.wire.RelayMessage;
import io.fsp.relaylink.wire.RelayRole;
import io.fsp.tls.Fingerprint;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TokenException;
import io.fsp.token.TokenKey;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.ReferenceCounted;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
    /** Distinct transfers one connection may hold tokens for. */
    static final int MAX_TOKENS_PER_CONNECTION = 64;
    /** Clear links one TLS connection may ask for: so there are never more clear links than TLS connections. */
    static final int MAX_BIND_REQUESTS = 1;

    private final BlockStore store;
    private final Clock clock;
    private final BlockCheck blockCheck;
    private final ReadBudget readBudget;
    private final ConnectionPolicy policy;
    private final Runnable onAuthenticated;
    private final ClientAdmission clients;
    private final RelayMetrics metrics;
    private final Pacing pacing;
    private final ArrayDeque<RelayMessage> inbox = new ArrayDeque<>();
    /** Shared with this connection's clear link, which may serve them from another event loop. */
    private Map<TransferId, CapabilityToken> tokens = new ConcurrentHashMap<>();
    private final ClearLinks links;
    /** On a clear link: what it acts for (its TLS connection's role, server and tokens); null on TLS. */
    private ClearLinks.Grant grant;
    private int bindRequests;
    /** When a frame last came in, on this connection or on the other of its pair (a TLS connection and its link). */
    private AtomicLong activity = new AtomicLong(System.nanoTime());
    /** Transfers this (server) connection opened and has not finished or aborted: its closing finishes them. */
    private final java.util.Set<TransferId> pushing = new java.util.HashSet<>();
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
    /** Counted by {@link #clients} (a client whose token was accepted), for the transfers in {@link #tokens}. */
    private boolean admitted;
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
        this.clients = clients;
        this.metrics = metrics;
        this.pacing = pacing;
        this.readBudget = readBudget;
        this.policy = policy;
        this.onAuthenticated = onAuthenticated;
        this.store = store;
        this.clock = clock;
        this.blockCheck = blockCheck;
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
    private void authenticated() {
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
        if (admitted) {
            admitted = false;
            clients.release(peer, tokens.keySet());
        }
        if (authDeadline != null) {
            authDeadline.cancel(false);
        }
        // A server pushes a transfer over the connection that opened it: with that connection gone, nothing more
        // comes, and the transfer keeps only what it holds (a server that crashed mid-evacuation included).
        for (TransferId id : pushing) {
            try {
                if (store.finish(id) == BlockStore.FinishResult.ENDED) {
                    log.info("{} transfer {} ended with the connection that opened it: it held no block", session, id);
                }
            } catch (StoreException e) {
                // ended meanwhile
            }
        }
        pushing.clear();
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
    private <T> void await(CompletableFuture<T> work, java.util.function.BiConsumer<T, Throwable> then) {
        await(work, then, () -> { });
    }

    /** As above; {@code onAbandon} runs instead of {@code then} if the connection closed meanwhile. */
    private <T> void await(CompletableFuture<T> work, java.util.function.BiConsumer<T, Throwable> then,
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
        if (grant != null && !(m instanceof RelayMessage.PutBlock || m instanceof RelayMessage.GetBlock)) {
            ReferenceCountUtil.release(m);
            fail(new RelayMessage.Error(0, RelayErrorCode.BAD_FRAME, "a clear link carries blocks only (PUT_BLOCK,"
                    + " GET_BLOCK); " + m.getClass().getSimpleName() + " goes over TLS"));
            return;
        }
        if (m instanceof RelayMessage.BindRequest b) {
            bindRequest(b);
        } else if (m instanceof RelayMessage.OpenTransfer o) {
            open(o);
        } else if (m instanceof RelayMessage.PutBlock p) {
            put(p);
        } else if (m instanceof RelayMessage.AbortTransfer a) {
            abort(a);
        } else if (m instanceof RelayMessage.FinishTransfer f) {
            finish(f);
        } else if (m instanceof RelayMessage.Authorize a) {
            authorize(a);
        } else if (m instanceof RelayMessage.GetBlock g) {
            get(g);
        } else if (m instanceof RelayMessage.Confirm c) {
            confirm(c);
        } else if (m instanceof RelayMessage.StatusRequest s) {
            status(s);
        } else if (m instanceof RelayMessage.Holds h) {
            holds(h);
        } else if (m instanceof RelayMessage.Hello) {
            fail(new RelayMessage.Error(0, RelayErrorCode.BAD_HANDSHAKE, "HELLO twice on one connection"));
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
    private boolean ownsTransfer(int msgId, TransferId transfer) {
        Optional<Fingerprint> owner = store.owner(transfer);
        if (owner.isPresent() && !owner.get().equals(server)) {
            log.info("{} server {} refused transfer {}: another server opened it", session, server, transfer);
            refuseNotOpen(msgId, transfer);
            return false;
        }
        return true;
    }

    /** What a request about a transfer that is not open here gets: the same words whatever the reason. */
    private void refuseNotOpen(int msgId, TransferId transfer) {
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

    // ---------------------------------------------------------------- server operations

    private boolean requireServer(RelayMessage m) {
        if (role == RelayRole.SERVER) {
            return true;
        }
        ReferenceCountUtil.release(m);
        refuse(m.id(), RelayErrorCode.NOT_A_TRUSTED_SERVER,
                "only a server with a trusted certificate may do this (relay option --trust-server)");
        return false;
    }

    private void open(RelayMessage.OpenTransfer o) {
        if (!requireServer(o)) {
            return;
        }
        if (!o.expiresAt().isAfter(clock.instant())) {
            refuse(o.id(), RelayErrorCode.TOKEN_EXPIRED, "expiresAt: " + o.expiresAt() + " (expected: in the future)");
            return;
        }
        await(store.open(o.transferId(), o.tokenKey(), o.expiresAt(), o.space(), server, o.retained()),
                (result, error) -> opened(o, result, error));
    }

    private void opened(RelayMessage.OpenTransfer o, BlockStore.OpenResult result, Throwable error) {
        if (error != null) {
            refuse(o.id(), error);
            return;
        }
        switch (result) {
            case OPENED -> {
                log.info("{} transfer {} opened{}, expires {}, space {} bytes, {} reserved", session, o.transferId(),
                        o.retained() ? " retained" : "", o.expiresAt(), o.space(),
                        store.status(o.transferId()).map(BlockStore.TransferStatus::reservation).orElse(0L));
                metrics.opened();
                pushing.add(o.transferId());
                reply(new RelayMessage.Ok(o.id()));
            }
            case ALREADY_OPEN -> reply(new RelayMessage.Ok(o.id()));
            case KEY_MISMATCH -> refuse(o.id(), RelayErrorCode.TRANSFER_EXISTS, "transfer " + o.transferId()
                    + " is already open with another key, for another server or with another retention");
            case NO_SPACE -> {
                long reservation = Math.min(o.space(), store.config().transferSpaceBytes());
                String limit = store.shortfall(server, o.retained(), o.space()).orElse("the relay's space is taken");
                log.info("{} transfer {} refused: no room to reserve {} bytes; {}", session, o.transferId(), reservation,
                        limit);
                refuse(o.id(), RelayErrorCode.NO_SPACE, o.space() < 1
                        ? "space: " + o.space() + " (expected: >= 1, the block bytes the transfer will push here)"
                        : "no room to reserve " + BlockStore.size(reservation) + " for transfer " + o.transferId()
                                + ": " + limit + "; try another relay");
            }
            case RETENTION_TOO_LONG -> refuse(o.id(), RelayErrorCode.RETENTION_TOO_LONG, "expiresAt: " + o.expiresAt()
                    + " (expected: by " + clock.instant().plus(store.config().maxRetain()) + "): this relay retains"
                    + " transfers for at most " + Durations.format(store.config().maxRetain()) + " (--max-retain)");
        }
    }

    private void put(RelayMessage.PutBlock p) {
        if (!requireServer(p)) {
            return;
        }
        if (!ownsTransfer(p.id(), p.transferId())) {
            p.release();
            return;
        }
        TransferId id = p.transferId();
        long seq = p.seq();
        int msgId = p.id();
        ByteBuf bytes = p.content();
        int size = bytes.readableBytes();
        long arrived = System.nanoTime();
        // Checked, then handed to the store; until it answers, this connection reads nothing more.
        CompletableFuture<Void> stored = blockCheck.verify(id, seq, bytes).handle((ok, error) -> {
            if (error != null) {
                bytes.release();
                return CompletableFuture.<Void>failedFuture(error);
            }
            return store.put(id, seq, bytes);
        }).thenCompose(f -> f).thenCompose(v -> {
            metrics.stored(size, System.nanoTime() - arrived);
            return pacing.afterReceiving(id, size, ctx.executor());
        });
        await(stored, (ok, error) -> {
            if (error == null) {
                reply(new RelayMessage.Ok(msgId));
            } else {
                refuse(msgId, error);
            }
        });
    }

    private void abort(RelayMessage.AbortTransfer a) {
        if (!requireServer(a) || !ownsTransfer(a.id(), a.transferId())) {
            return;
        }
        pushing.remove(a.transferId());
        if (store.abort(a.transferId())) {
            log.info("{} transfer {} aborted by the server", session, a.transferId());
            metrics.aborted();
            reply(new RelayMessage.Ok(a.id()));
        } else {
            refuseNotOpen(a.id(), a.transferId());
        }
    }

    private void finish(RelayMessage.FinishTransfer f) {
        if (!requireServer(f) || !ownsTransfer(f.id(), f.transferId())) {
            return;
        }
        pushing.remove(f.transferId());
        try {
            BlockStore.FinishResult result = store.finish(f.transferId());
            log.info("{} transfer {} finished by the server: {}", session, f.transferId(),
                    result == BlockStore.FinishResult.ENDED ? "it held no block, ended"
                            : store.status(f.transferId()).map(t -> t.reservation() + " bytes reserved, what it holds")
                                    .orElse("ended"));
            reply(new RelayMessage.Ok(f.id()));
        } catch (StoreException e) {
            refuse(f.id(), e.code(), e.getMessage());
        }
    }

    // ---------------------------------------------------------------- client operations

    private void authorize(RelayMessage.Authorize a) {
        CapabilityToken token;
        try {
            token = CapabilityToken.decode(a.token());
        } catch (TokenException e) {
            refuse(a.id(), RelayErrorCode.TOKEN_MALFORMED, e.getMessage());
            return;
        }
        Optional<TokenKey> key = store.tokenKey(token.transferId());
        if (key.isEmpty()) {
            refuseNotOpen(a.id(), token.transferId());
            return;
        }
        try {
            token.verify(key.get(), token.transferId(), clock.instant());
        } catch (TokenException e) {
            log.debug("{} token for transfer {} refused: {}", session, token.transferId(), e.getMessage());
            refuse(a.id(), tokenCode(e.reason()), e.getMessage());
            return;
        }
        if (!tokens.containsKey(token.transferId()) && tokens.size() >= MAX_TOKENS_PER_CONNECTION) {
            refuse(a.id(), RelayErrorCode.TOO_MANY_REQUESTS,
                    "tokens: " + tokens.size() + " transfers on one connection (expected: <= "
                            + MAX_TOKENS_PER_CONNECTION + ")");
            return;
        }
        if (role != RelayRole.SERVER && !tokens.containsKey(token.transferId())) {
            ClientAdmission.Refusal refusal = clients.admit(peer, admitted, token.transferId());
            if (refusal != null) {
                metrics.refused(refusal.limit());
                fail(new RelayMessage.Error(a.id(), RelayErrorCode.TOO_MANY_CONNECTIONS, refusal.why()));
                return;
            }
            admitted = true;
        }
        tokens.put(token.transferId(), token);
        authenticated();
        reply(new RelayMessage.Ok(a.id()));
    }

    /** Checks that a token presented on this connection allows {@code what} on this block; refuses if not. */
    private boolean allowed(int msgId, TransferId transfer, long seq, boolean confirm) {
        CapabilityToken token = tokens.get(transfer);
        if (token == null) {
            refuse(msgId, RelayErrorCode.TOKEN_FOREIGN, "no token for transfer " + transfer
                    + " on this connection (expected: AUTHORIZE first)");
            return false;
        }
        if (!clock.instant().isBefore(token.expiresAt())) {
            refuse(msgId, RelayErrorCode.TOKEN_EXPIRED, "token expired at " + token.expiresAt());
            return false;
        }
        if (confirm ? !token.scope().confirm() : !token.scope().read()) {
            refuse(msgId, RelayErrorCode.TOKEN_FOREIGN, "token does not allow " + (confirm ? "CONFIRM" : "GET"));
            return false;
        }
        if (seq >= 0 && !token.scope().covers(seq)) {
            refuse(msgId, RelayErrorCode.TOKEN_FOREIGN, "block " + seq + " is outside the token's range "
                    + token.scope().firstSeq() + ".." + token.scope().lastSeq());
            return false;
        }
        return true;
    }

    private void get(RelayMessage.GetBlock g) {
        if (!allowed(g.id(), g.transferId(), g.seq(), false)) {
            return;
        }
        long seq = g.seq();
        long arrived = System.nanoTime();
        // On a clear link the kernel sends a spilled block from its file; over TLS it is read into fresh memory,
        // taken from the shared budget until it is written.
        boolean fromFile = grant != null;
        long budget = fromFile ? 0 : store.held(g.transferId(), seq).filter(BlockStore.HeldBlock::onDisk)
                .map(BlockStore.HeldBlock::size).orElse(0);
        CompletableFuture<Optional<ReferenceCounted>> read = pacing.beforeSending(g.transferId(),
                readBudget.acquire(budget).thenCompose(granted -> fromFile ? store.getForSending(g.transferId(), seq)
                        : store.get(g.transferId(), seq).thenApply(o -> o.<ReferenceCounted>map(b -> b))), ctx.executor());
        Runnable giveBack = () -> readBudget.release(budget);
        await(read, (block, error) -> {
            if (error != null || block.isEmpty()) {
                giveBack.run();
            }
            if (error != null) {
                refuse(g.id(), error);
            } else if (block.isEmpty()) {
                reply(new RelayMessage.NotFound(g.id(), g.transferId(), seq));
            } else {
                RelayMessage served = block.get() instanceof ByteBuf bytes
                        ? new RelayMessage.Block(g.id(), g.transferId(), seq, bytes)
                        : new RelayMessage.BlockRegion(g.id(), g.transferId(), seq, (io.netty.channel.FileRegion) block.get());
                long size = served instanceof RelayMessage.Block b ? b.content().readableBytes()
                        : ((RelayMessage.BlockRegion) served).region().count();
                ctx.writeAndFlush(served).addListener(w -> {
                    giveBack.run();
                    if (w.isSuccess()) {
                        metrics.served(size, System.nanoTime() - arrived);
                    } else {
                        ctx.fireExceptionCaught(w.cause());
                    }
                });
            }
        }, giveBack);
    }

    private void confirm(RelayMessage.Confirm c) {
        for (long seq : c.seqs()) {
            if (!allowed(c.id(), c.transferId(), seq, true)) {
                return;
            }
        }
        try {
            int freed = store.confirm(c.transferId(), c.seqs());
            metrics.confirmed(freed);
            reply(new RelayMessage.Confirmed(c.id(), freed));
        } catch (StoreException e) {
            refuse(c.id(), e);
        }
    }

    /** Which of the blocks asked for are here, for a token that may read them all; frees nothing. */
    private void holds(RelayMessage.Holds h) {
        for (long seq : h.seqs()) {
            if (!allowed(h.id(), h.transferId(), seq, false)) {
                return;
            }
        }
        await(store.holds(h.transferId(), h.seqs()), (held, error) -> {
            if (error != null) {
                refuse(h.id(), error);
            } else {
                reply(new RelayMessage.Held(h.id(), h.transferId(), held));
            }
        });
    }

    /** Answered to the server that opened the transfer, and to a peer that showed a token for it, only. */
    private void status(RelayMessage.StatusRequest s) {
        boolean owner = role == RelayRole.SERVER && store.owner(s.transferId()).filter(server::equals).isPresent();
        if (!owner && role == RelayRole.SERVER && !tokens.containsKey(s.transferId())) {
            refuseNotOpen(s.id(), s.transferId()); // another server's, or none
            return;
        }
        if (!owner && !allowed(s.id(), s.transferId(), -1, false)) {
            return;
        }
        Optional<BlockStore.TransferStatus> st = store.status(s.transferId());
        if (st.isEmpty()) {
            refuseNotOpen(s.id(), s.transferId());
            return;
        }
        BlockStore.TransferStatus t = st.get();
        reply(new RelayMessage.Status(s.id(), s.transferId(), t.blocks(), t.bytes(), t.expiresAt(), store.used(),
                store.quota(), t.reservation()));
    }

    // ---------------------------------------------------------------- replies

    private void reply(RelayMessage m) {
        ctx.writeAndFlush(m).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
    }

    private void refuse(int msgId, RelayErrorCode code, String text) {
        metrics.error(code);
        reply(new RelayMessage.Error(msgId, code, text));
        // A trusted server's refusals are its own affair; anyone else probing (tokens, blocks) is cut off.
        if (role != RelayRole.SERVER && ++refusals >= policy.maxRefusals()) {
            log.debug("{} {} requests refused: closing", session, refusals);
            fail(new RelayMessage.Error(0, RelayErrorCode.TOO_MANY_REFUSALS, refusals + " requests refused"
                    + " (expected: fewer than " + policy.maxRefusals() + ")"));
        }
    }

    private void refuse(int msgId, Throwable error) {
        Throwable e = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
        if (e instanceof StoreException s) {
            refuse(msgId, s.code(), s.getMessage());
        } else {
            log.warn("{} internal error: {}", session, e.toString(), e);
            refuse(msgId, RelayErrorCode.STORE_FAILED, "internal error");
        }
    }

    /** Sends a last ERROR and closes: the connection cannot go on. */
    private void fail(RelayMessage.Error error) {
        if (closing) {
            return;
        }
        closing = true;
        metrics.error(error.code());
        inbox.forEach(ReferenceCountUtil::release);
        inbox.clear();
        ctx.writeAndFlush(error).addListener(ChannelFutureListener.CLOSE);
    }

    private static RelayErrorCode tokenCode(TokenException.Reason reason) {
        return switch (reason) {
            case MALFORMED -> RelayErrorCode.TOKEN_MALFORMED;
            case FORGED -> RelayErrorCode.TOKEN_FORGED;
            case EXPIRED -> RelayErrorCode.TOKEN_EXPIRED;
            case FOREIGN -> RelayErrorCode.TOKEN_FOREIGN;
        };
    }
}

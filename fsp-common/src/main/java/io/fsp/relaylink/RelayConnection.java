package io.fsp.relaylink;

import io.fsp.block.BlockFlags;
import io.fsp.net.NetworkErrors;
import io.fsp.net.SocketBuffers;
import io.fsp.relaylink.wire.BlockReads;
import io.fsp.relaylink.wire.ClearLink;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.fsp.relaylink.wire.RelayFrameDecoder;
import io.fsp.relaylink.wire.RelayFrameEncoder;
import io.fsp.relaylink.wire.RelayLimits;
import io.fsp.relaylink.wire.RelayMessage;
import io.fsp.relaylink.wire.RelayRole;
import io.fsp.tls.Fingerprint;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TokenKey;
import io.fsp.token.TransferId;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * One TLS connection to a relay, usable from any thread. A server {@linkplain #openTransfer opens} a
 * transfer and {@linkplain #putBlock pushes} blocks: at most {@code pushWindowBytes} are unacknowledged at
 * a time, the rest wait here, and {@link #whenWritable()} tells a striping engine when this relay can
 * take more (a full relay delays its acknowledgements, so a slow or full relay gets fewer blocks). A
 * client {@linkplain #authorize presents its token}, {@linkplain #getBlock fetches} blocks and
 * {@linkplain #confirm confirms} them.
 *
 * <p>Every operation returns a future that fails with a {@link RelayException}: {@link
 * RelayClosedException} (dead relay), {@link RelayTimeoutException} (no answer), {@link
 * RelayRefusedException} / {@link TokenRefusedException} (ERROR from the relay), {@link
 * BlockNotFoundException}. Futures complete on the connection's event loop: keep callbacks short, or chain
 * with {@code thenApplyAsync(…, executor)} for disk or CPU work.
 */
public final class RelayConnection implements AutoCloseable {
    private final Channel channel;
    private final InetSocketAddress relay;
    private final RelayConnectionConfig config;
    private final CompletableFuture<RelayConnection> ready = new CompletableFuture<>();

    // Confined to the channel's event loop.
    private final Map<Integer, Pending> pending = new HashMap<>();
    private final ArrayDeque<QueuedPut> queuedPuts = new ArrayDeque<>();
    private final List<CompletableFuture<Void>> writableWaiters = new ArrayList<>();
    private int nextId = 1;
    private volatile long unacknowledgedBytes; // written on the event loop only
    private volatile long pushWindowBytes; // written on the event loop only
    private volatile long minRoundTripNanos = Long.MAX_VALUE; // written on the event loop only
    private RelayRole role;
    private Throwable failure;
    /** The clear link that carries this connection's blocks (§3.7) once bound, else null: blocks go over TLS. */
    private Channel clear;
    private CompletableFuture<Void> binding;

    private RelayConnection(Channel channel, InetSocketAddress relay, RelayConnectionConfig config) {
        this.channel = channel;
        this.relay = relay;
        this.config = config;
        this.pushWindowBytes = config.pushWindowBytes();
    }

    /**
     * Connects to {@code relay} over TLS (with {@code ssl}, which pins the relay and, for a server, presents
     * its certificate), says HELLO, and completes once the relay has answered WELCOME.
     */
    public static CompletableFuture<RelayConnection> connect(InetSocketAddress relay, SslContext ssl,
                                                             EventLoopGroup group, RelayConnectionConfig config) {
        return connect(relay, ssl, group, config, null);
    }

    /**
     * As {@link #connect(InetSocketAddress, SslContext, EventLoopGroup, RelayConnectionConfig)}, then
     * {@link #authorize}: but HELLO, AUTHORIZE and the clear link's BIND_REQUEST go out together once TLS is up (the
     * relay answers them in order), so a relay far away costs two round trips fewer. Completes once the token is
     * accepted and the clear link bound; on a refusal the connection is closed.
     */
    public static CompletableFuture<RelayConnection> connect(InetSocketAddress relay, SslContext ssl,
                                                             EventLoopGroup group, RelayConnectionConfig config,
                                                             CapabilityToken token) {
        CompletableFuture<RelayConnection> result = new CompletableFuture<>();
        RelayConnection[] holder = new RelayConnection[1];
        Bootstrap bootstrap = SocketBuffers.apply(new Bootstrap(), config.socketBufferBytes())
                .group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) config.connectTimeout().toMillis())
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        RelayConnection c = new RelayConnection(ch, relay, config);
                        holder[0] = c;
                        SslHandler sslHandler = ssl.newHandler(ch.alloc(), relay.getHostString(), relay.getPort());
                        sslHandler.setHandshakeTimeoutMillis(config.connectTimeout().toMillis());
                        ch.pipeline().addLast("ssl", sslHandler)
                                .addLast("decoder", new RelayFrameDecoder(config.limits()))
                                .addLast("encoder", new RelayFrameEncoder())
                                .addLast("relay", c.new Handler());
                        sslHandler.handshakeFuture().addListener(f -> {
                            if (f.isSuccess()) {
                                c.hello(token);
                            } else {
                                c.noteFailure(f.cause()); // before the close, so that the close says why
                            }
                        });
                        ch.closeFuture().addListener(f -> c.closed());
                    }
                });
        ChannelFuture connecting = bootstrap.connect(relay);
        connecting.addListener(f -> {
            if (!f.isSuccess()) {
                result.completeExceptionally(new RelayClosedException(relay, "cannot connect: " + NetworkErrors.reason(f.cause()),
                        f.cause()));
                return;
            }
            RelayConnection c = holder[0];
            ScheduledFuture<?> timeout = c.channel.eventLoop().schedule(() -> {
                c.ready.completeExceptionally(new RelayTimeoutException(relay, "no WELCOME within "
                        + config.connectTimeout().toMillis() + " ms"));
                c.channel.close();
            }, config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
            c.ready.whenComplete((ok, error) -> {
                timeout.cancel(false);
                if (error != null) {
                    result.completeExceptionally(error);
                } else {
                    result.complete(ok);
                }
            });
        });
        return result;
    }

    /** What the relay lets this connection do: SERVER when it trusted our certificate. */
    public RelayRole role() {
        return role;
    }

    public InetSocketAddress relay() {
        return relay;
    }

    /**
     * The SHA-256 fingerprint of the certificate the relay presented. A server that reached a relay by its
     * address can announce this to the client, which then pins it.
     */
    public Fingerprint relayFingerprint() {
        try {
            Certificate[] chain = channel.pipeline().get(SslHandler.class).engine().getSession().getPeerCertificates();
            return Fingerprint.of((X509Certificate) chain[0]);
        } catch (SSLPeerUnverifiedException e) {
            throw new IllegalStateException("relay " + relay + " presented no certificate", e);
        }
    }

    public boolean isOpen() {
        return channel.isActive();
    }

    /** Completes when the connection is closed, for whatever reason. */
    public CompletableFuture<Void> closeFuture() {
        CompletableFuture<Void> f = new CompletableFuture<>();
        channel.closeFuture().addListener(x -> f.complete(null));
        return f;
    }

    // ---------------------------------------------------------------- server side

    /**
     * Registers a transfer and its token key; blocks can be put once this completes. {@code space} is the most
     * block bytes this connection's server will push to the relay for the transfer: the relay reserves room for
     * them (or refuses the transfer, {@code NO_SPACE}) and refuses blocks beyond ({@code SPACE_EXCEEDED}).
     */
    public CompletableFuture<Void> openTransfer(TransferId transferId, TokenKey key, Instant expiresAt, long space) {
        return openTransfer(transferId, key, expiresAt, space, false);
    }

    /**
     * As {@link #openTransfer(TransferId, TokenKey, Instant, long)}; a {@code retained} transfer is kept on the
     * relay's disk until {@code expiresAt}, across restarts, for a collector that comes later (docs/protocol.md §3.3).
     */
    public CompletableFuture<Void> openTransfer(TransferId transferId, TokenKey key, Instant expiresAt, long space,
                                                boolean retained) {
        return request(id -> new RelayMessage.OpenTransfer(id, transferId, key, expiresAt, space, retained),
                config.requestTimeout(), Void.class);
    }

    /**
     * Pushes one block; takes ownership of {@code block} (released once written or on failure). Completes
     * when the relay has stored it, which is the server's cue that the block may be announced. To place the
     * block elsewhere should this fail, pass {@code block.retainedDuplicate()} and keep the original until
     * the future completes.
     */
    public CompletableFuture<Void> putBlock(TransferId transferId, long seq, ByteBuf block) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        channel.eventLoop().execute(() -> {
            if (failure != null || !channel.isActive()) {
                ReferenceCountUtil.release(block);
                f.completeExceptionally(closedException());
                return;
            }
            queuedPuts.add(new QueuedPut(transferId, seq, block, f));
            drainPuts();
        });
        return f;
    }

    /**
     * Completes when this connection has room in its push window (nothing queued, fewer than {@code
     * pushWindowBytes} unacknowledged), at once if it has now; fails if the connection is closed.
     */
    public CompletableFuture<Void> whenWritable() {
        CompletableFuture<Void> f = new CompletableFuture<>();
        channel.eventLoop().execute(() -> {
            if (failure != null || !channel.isActive()) {
                f.completeExceptionally(closedException());
            } else if (hasPushRoom()) {
                f.complete(null);
            } else {
                writableWaiters.add(f);
                f.whenComplete((x, e) -> {
                    if (f.isCancelled()) {
                        channel.eventLoop().execute(() -> writableWaiters.remove(f));
                    }
                });
            }
        });
        return f;
    }

    /**
     * The first of {@code relays} with room in its push window: first-come-first-served striping gives the
     * next block to it, so faster relays get more. Fails only when every connection is closed.
     */
    public static CompletableFuture<RelayConnection> firstWritable(Collection<RelayConnection> relays) {
        CompletableFuture<RelayConnection> first = new CompletableFuture<>();
        if (relays.isEmpty()) {
            first.completeExceptionally(new IllegalArgumentException("relays: none (expected: at least one)"));
            return first;
        }
        java.util.concurrent.atomic.AtomicInteger failed = new java.util.concurrent.atomic.AtomicInteger();
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        for (RelayConnection r : relays) {
            CompletableFuture<Void> w = r.whenWritable();
            waits.add(w);
            w.whenComplete((ok, error) -> {
                if (error == null) {
                    first.complete(r);
                } else if (!(error instanceof java.util.concurrent.CancellationException)
                        && failed.incrementAndGet() == relays.size()) {
                    first.completeExceptionally(error);
                }
            });
        }
        // The relays that did not win stop waiting, so a long-full relay collects no waiters.
        first.whenComplete((r, error) -> waits.forEach(w -> w.cancel(false)));
        return first;
    }

    /**
     * The shortest time a request without block data took to be answered on this connection (OPEN_TRANSFER,
     * CONFIRM, …): the round trip to the relay, or 0 before any was answered.
     */
    public long minRoundTripNanos() {
        long rtt = minRoundTripNanos;
        return rtt == Long.MAX_VALUE ? 0 : rtt;
    }

    /** Block bytes pushed but not yet acknowledged plus those waiting here (a rough load figure). */
    public long unacknowledgedBytes() {
        return unacknowledgedBytes;
    }

    /**
     * Sets the push window for the blocks pushed from now on: a connection kept for several transfers serves
     * each with a window fitted to its block size.
     */
    public void pushWindowBytes(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("pushWindowBytes: " + bytes + " (expected: >= 1)");
        }
        channel.eventLoop().execute(() -> {
            pushWindowBytes = bytes;
            drainPuts();
        });
    }

    /** Drops the transfer and all its blocks at the relay. */
    public CompletableFuture<Void> abortTransfer(TransferId transferId) {
        return request(id -> new RelayMessage.AbortTransfer(id, transferId), config.requestTimeout(), Void.class);
    }

    /**
     * Tells the relay that this server pushes nothing more into the transfer: its reservation there shrinks to the
     * blocks the relay holds (a transfer that holds none ends).
     */
    public CompletableFuture<Void> finishTransfer(TransferId transferId) {
        return request(id -> new RelayMessage.FinishTransfer(id, transferId), config.requestTimeout(), Void.class);
    }

    // ---------------------------------------------------------------- client side

    /** Presents a capability token; the relay checks it and remembers it for this connection. */
    public CompletableFuture<Void> authorize(CapabilityToken token) {
        CompletableFuture<Void> accepted = request(id -> new RelayMessage.Authorize(id, token.encode()),
                config.requestTimeout(), Void.class);
        // The link is bound on the event loop, where its state lives: blocks go over it once it is.
        return accepted.thenComposeAsync(ok -> bindClearLink(), channel.eventLoop());
    }

    /**
     * Fetches one block: the bytes exactly as the server put them. The caller owns (and must release) the
     * buffer. Fails with {@link BlockNotFoundException} if the relay does not hold it. Requests may be
     * pipelined; the relay answers them in order. Every answer is read as it arrives, so bound the number of
     * outstanding gets (e.g. by the writer's queue depth) to bound memory.
     */
    public CompletableFuture<ByteBuf> getBlock(TransferId transferId, long seq) {
        return request(id -> new RelayMessage.GetBlock(id, transferId, seq), config.requestTimeout(), ByteBuf.class);
    }

    /** Tells the relay these blocks are safe on the client's disk; completes with how many it freed. */
    public CompletableFuture<Long> confirm(TransferId transferId, Collection<Long> seqs) {
        List<Long> all = List.copyOf(seqs);
        if (all.isEmpty()) {
            return CompletableFuture.completedFuture(0L);
        }
        CompletableFuture<Long> total = CompletableFuture.completedFuture(0L);
        for (int i = 0; i < all.size(); i += RelayLimits.MAX_CONFIRM_SEQS) {
            List<Long> part = all.subList(i, Math.min(all.size(), i + RelayLimits.MAX_CONFIRM_SEQS));
            CompletableFuture<Long> one = request(id -> new RelayMessage.Confirm(id, transferId, part),
                    config.requestTimeout(), Long.class);
            total = total.thenCombine(one, Long::sum);
        }
        return total;
    }

    /**
     * Which of {@code seqs} the relay still holds (it checks each is whole in memory or on its disk), asked in
     * batches of {@link RelayLimits#MAX_CONFIRM_SEQS}; frees nothing. Needs a token that may read them all.
     */
    public CompletableFuture<Set<Long>> holds(TransferId transferId, Collection<Long> seqs) {
        List<Long> all = List.copyOf(seqs);
        CompletableFuture<Set<Long>> held = CompletableFuture.completedFuture(new TreeSet<>());
        for (int i = 0; i < all.size(); i += RelayLimits.MAX_CONFIRM_SEQS) {
            List<Long> part = all.subList(i, Math.min(all.size(), i + RelayLimits.MAX_CONFIRM_SEQS));
            CompletableFuture<RelayMessage.Held> one = request(id -> new RelayMessage.Holds(id, transferId, part),
                    config.requestTimeout(), RelayMessage.Held.class);
            Set<Long> asked = new HashSet<>(part);
            held = held.thenCombine(one, (set, h) -> {
                h.seqs().stream().filter(asked::contains).forEach(set::add); // only what was asked
                return set;
            });
        }
        return held;
    }

    /** What the relay holds of the transfer (needs a token for it, or a server connection). */
    public CompletableFuture<RelayMessage.Status> status(TransferId transferId) {
        return request(id -> new RelayMessage.StatusRequest(id, transferId), config.requestTimeout(),
                RelayMessage.Status.class);
    }

    /** Closes the connection; pending operations fail with {@link RelayClosedException}. */
    @Override
    public void close() {
        channel.close();
    }

    // ---------------------------------------------------------------- internals (event loop)

    private interface RequestFactory {
        RelayMessage make(int id);
    }

    private <T> CompletableFuture<T> request(RequestFactory factory, Duration timeout, Class<T> type) {
        CompletableFuture<T> f = new CompletableFuture<>();
        channel.eventLoop().execute(() -> {
            if (failure != null || !channel.isActive()) {
                f.completeExceptionally(closedException());
                return;
            }
            RelayMessage msg = factory.make(nextId());
            send(msg, new Pending(type, f, 0, msg), timeout);
        });
        return f;
    }

    /**
     * Sends a request over the clear link when it carries blocks and one is bound, else over TLS. A block that is not
     * sealed (cipher=none) is pushed over TLS: on a link its bytes would be plaintext on the wire.
     */
    private void send(RelayMessage msg, Pending p, Duration timeout) {
        boolean block = msg instanceof RelayMessage.GetBlock
                || msg instanceof RelayMessage.PutBlock put && sealed(put.content());
        send(block && clear != null ? clear : channel, msg, p, timeout);
    }

    /** Whether a block's clear header says ENCRYPTED (its flags are bytes 2 and 3, docs/protocol.md §2.1). */
    private static boolean sealed(ByteBuf block) {
        return block.readableBytes() >= 4 && (block.getUnsignedShort(block.readerIndex() + 2) & BlockFlags.ENCRYPTED) != 0;
    }

    private void send(Channel on, RelayMessage msg, Pending p, Duration timeout) {
        int id = msg.id();
        p.timeout = channel.eventLoop().schedule(() -> {
            if (pending.remove(id) != null) {
                settlePut(p);
                p.future.completeExceptionally(new RelayTimeoutException(relay, "no answer to " + p.what()
                        + " within " + timeout.toMillis() + " ms"));
            }
        }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        pending.put(id, p);
        on.writeAndFlush(msg).addListener(w -> {
            if (!w.isSuccess()) {
                noteFailure(w.cause());
                channel.close();
            }
        });
    }

    private int nextId() {
        int id = nextId++;
        if (nextId == 0) {
            nextId = 1; // 0 is reserved for errors about the connection
        }
        return id;
    }

    /** Says HELLO; with {@code token} (a client's), AUTHORIZE and BIND_REQUEST right behind it. */
    private void hello(CapabilityToken token) {
        int id = nextId();
        RelayMessage hello = new RelayMessage.Hello(id, RelayMessage.VERSION);
        CompletableFuture<RelayMessage.Welcome> welcome = new CompletableFuture<>();
        send(hello, new Pending(RelayMessage.Welcome.class, welcome, 0, hello), config.connectTimeout());
        if (token != null) {
            RelayMessage authorize = new RelayMessage.Authorize(nextId(), token.encode());
            CompletableFuture<Void> accepted = new CompletableFuture<>();
            send(authorize, new Pending(Void.class, accepted, 0, authorize), config.requestTimeout());
            CompletableFuture<Void> bound = bindClearLink();
            welcome.thenApply(this::welcomed).thenCompose(w -> accepted).thenCompose(ok -> bound)
                    .whenComplete((ok, error) -> {
                        if (error != null) {
                            ready.completeExceptionally(error instanceof CompletionException && error.getCause() != null
                                    ? error.getCause() : error);
                            channel.close(); // refused: the connection serves nothing more
                        } else {
                            ready.complete(this);
                        }
                    });
            return;
        }
        welcome.whenComplete((w, error) -> {
            if (error != null) {
                ready.completeExceptionally(error);
            } else if (w.version() != RelayMessage.VERSION) {
                ready.completeExceptionally(new RelayRefusedException(relay, RelayErrorCode.BAD_HANDSHAKE,
                        "relay speaks version " + w.version() + " (expected: " + RelayMessage.VERSION + ")"));
                channel.close();
            } else {
                role = w.role();
                if (role == RelayRole.SERVER) {
                    bindClearLink().whenComplete((ok, e) -> {
                        if (e != null) {
                            ready.completeExceptionally(e);
                            channel.close();
                        } else {
                            ready.complete(this);
                        }
                    });
                } else {
                    ready.complete(this); // a client is granted a clear link once its token is accepted
                }
            }
        });
    }

    /** A pipelined client's WELCOME: the relay's version and role checked, the role kept for the clear link. */
    private RelayMessage.Welcome welcomed(RelayMessage.Welcome w) {
        if (w.version() != RelayMessage.VERSION) {
            throw new CompletionException(new RelayRefusedException(relay, RelayErrorCode.BAD_HANDSHAKE,
                    "relay speaks version " + w.version() + " (expected: " + RelayMessage.VERSION + ")"));
        }
        role = w.role();
        return w;
    }

    /**
     * Asks the relay for a clear link and opens it (docs/protocol.md §3.7), once; completes at once when the
     * configuration keeps blocks on TLS. On the event loop.
     */
    private CompletableFuture<Void> bindClearLink() {
        if (!config.clearLinks()) {
            return CompletableFuture.completedFuture(null);
        }
        if (binding != null) {
            return binding;
        }
        binding = new CompletableFuture<>();
        int id = nextId();
        RelayMessage request = new RelayMessage.BindRequest(id);
        CompletableFuture<RelayMessage.BindGrant> granted = new CompletableFuture<>();
        send(request, new Pending(RelayMessage.BindGrant.class, granted, 0, request), config.connectTimeout());
        granted.whenComplete((grant, error) -> {
            if (error != null) {
                binding.completeExceptionally(error);
            } else {
                openClearLink(grant);
            }
        });
        return binding;
    }

    private void openClearLink(RelayMessage.BindGrant grant) {
        byte[] secret = grant.secret();
        Bootstrap bootstrap = SocketBuffers.apply(new Bootstrap(), config.socketBufferBytes())
                .group(channel.eventLoop()).channel(NioSocketChannel.class) // one event loop: no locks between the two
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) config.connectTimeout().toMillis())
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        RelayFrameDecoder decoder = new RelayFrameDecoder(config.limits(), true, ClearLink.fromRelay(secret));
                        BlockReads.install(ch).into(decoder);
                        ch.pipeline().addLast("decoder", decoder)
                                .addLast("encoder", new RelayFrameEncoder(ClearLink.toRelay(secret)))
                                .addLast("relay", new Handler());
                    }
                });
        bootstrap.connect(relay).addListener((ChannelFuture f) -> {
            if (!f.isSuccess()) {
                binding.completeExceptionally(new RelayClosedException(relay, "cannot open a clear link: "
                        + NetworkErrors.reason(f.cause()), f.cause()));
                return;
            }
            Channel link = f.channel();
            if (!channel.isActive()) {
                link.close();
                binding.completeExceptionally(closedException());
                return;
            }
            // Either connection closing ends both: requests in flight on the other would wait for nothing.
            link.closeFuture().addListener(x -> channel.close());
            channel.closeFuture().addListener(x -> link.close());
            link.writeAndFlush(link.alloc().buffer(ClearLink.PREAMBLE.length + ClearLink.TICKET_LENGTH)
                    .writeBytes(ClearLink.PREAMBLE).writeBytes(grant.ticket()));
            int id = nextId();
            RelayMessage hello = new RelayMessage.Hello(id, RelayMessage.VERSION);
            CompletableFuture<RelayMessage.Welcome> welcome = new CompletableFuture<>();
            Pending p = new Pending(RelayMessage.Welcome.class, welcome, 0, hello);
            send(link, hello, p, config.connectTimeout());
            welcome.whenComplete((w, error) -> {
                if (error != null) {
                    binding.completeExceptionally(error);
                } else if (w.role() != role) {
                    binding.completeExceptionally(new RelayRefusedException(relay, RelayErrorCode.BAD_HANDSHAKE,
                            "clear link welcomed as " + w.role() + " (expected: " + role + ")"));
                    channel.close();
                } else {
                    clear = link;
                    binding.complete(null);
                }
            });
        });
    }

    private boolean hasPushRoom() {
        return queuedPuts.isEmpty() && unacknowledgedBytes < pushWindowBytes;
    }

    private void drainPuts() {
        while (!queuedPuts.isEmpty()) {
            QueuedPut q = queuedPuts.peek();
            long size = q.block.readableBytes();
            if (unacknowledgedBytes > 0 && unacknowledgedBytes + size > pushWindowBytes) {
                return; // the relay's acknowledgements make room
            }
            queuedPuts.poll();
            unacknowledgedBytes += size;
            RelayMessage.PutBlock put = new RelayMessage.PutBlock(nextId(), q.transferId, q.seq, q.block);
            send(put, new Pending(Void.class, q.future, size, put), config.putTimeout());
        }
        if (unacknowledgedBytes < pushWindowBytes && !writableWaiters.isEmpty()) {
            List<CompletableFuture<Void>> waiters = new ArrayList<>(writableWaiters);
            writableWaiters.clear();
            waiters.forEach(w -> w.complete(null));
        }
    }

    private void settlePut(Pending p) {
        if (p.putBytes > 0) {
            unacknowledgedBytes -= p.putBytes;
            drainPuts();
        }
    }

    private void noteFailure(Throwable cause) {
        if (failure == null) {
            failure = cause;
        }
    }

    private RelayException closedException() {
        String why = failure == null ? "connection closed"
                : "connection closed: " + innermostMessage(failure);
        return new RelayClosedException(relay, why, failure);
    }

    /**
     * The message of the deepest cause that has one: OpenSSL reports a refused certificate as "General
     * OpenSslEngine problem" and keeps the trust manager's reason (which fingerprint) in a cause.
     */
    private static String innermostMessage(Throwable t) {
        String message = t.getMessage();
        for (Throwable c = t.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            if (c.getMessage() != null) {
                message = c.getMessage();
            }
        }
        return message;
    }

    private void closed() {
        RelayException e = closedException();
        ready.completeExceptionally(e);
        List<Pending> left = new ArrayList<>(pending.values());
        pending.clear();
        for (Pending p : left) {
            p.timeout.cancel(false);
            p.future.completeExceptionally(e);
        }
        for (QueuedPut q; (q = queuedPuts.poll()) != null; ) {
            ReferenceCountUtil.release(q.block);
            q.future.completeExceptionally(e);
        }
        writableWaiters.forEach(w -> w.completeExceptionally(e));
        writableWaiters.clear();
        unacknowledgedBytes = 0;
    }

    @SuppressWarnings("unchecked")
    private void reply(RelayMessage msg) {
        if (msg instanceof RelayMessage.Error e && e.id() == 0) {
            noteFailure(refusal(e));
            channel.close();
            return;
        }
        Pending p = pending.remove(msg.id());
        if (p == null) {
            ReferenceCountUtil.release(msg); // answer to a request that already timed out
            return;
        }
        p.timeout.cancel(false);
        settlePut(p);
        if (p.putBytes == 0 && !(p.request instanceof RelayMessage.GetBlock)) { // small both ways: a round trip
            minRoundTripNanos = Math.min(minRoundTripNanos, System.nanoTime() - p.sentNanos);
        }
        if (msg instanceof RelayMessage.Error e) {
            p.future.completeExceptionally(refusal(e));
        } else if (msg instanceof RelayMessage.NotFound n) {
            p.future.completeExceptionally(new BlockNotFoundException(relay, n.transferId(), n.seq()));
        } else if (msg instanceof RelayMessage.Block b && p.type == ByteBuf.class
                && p.request instanceof RelayMessage.GetBlock g && g.seq() == b.seq()
                && g.transferId().equals(b.transferId())) {
            if (!((CompletableFuture<ByteBuf>) p.future).complete(b.content())) {
                b.release();
            }
        } else if (msg instanceof RelayMessage.Ok && p.type == Void.class) {
            p.future.complete(null);
        } else if (msg instanceof RelayMessage.Confirmed c && p.type == Long.class) {
            ((CompletableFuture<Long>) p.future).complete(c.freed());
        } else if (p.type.isInstance(msg) && !(msg instanceof RelayMessage.Block)) {
            ((CompletableFuture<Object>) p.future).complete(msg);
        } else {
            ReferenceCountUtil.release(msg);
            RelayRefusedException e = new RelayRefusedException(relay, RelayErrorCode.BAD_FRAME,
                    "answered " + p.what() + " with " + msg);
            p.future.completeExceptionally(e);
            noteFailure(e);
            channel.close();
        }
    }

    private RelayRefusedException refusal(RelayMessage.Error e) {
        return TokenRefusedException.isTokenCode(e.code())
                ? new TokenRefusedException(relay, e.code(), e.text())
                : new RelayRefusedException(relay, e.code(), e.text());
    }

    private static String describe(RelayMessage request) {
        String s = request.toString();
        return s.length() > 200 ? s.substring(0, 200) : s;
    }

    private final class Handler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof RelayMessage m) {
                reply(m);
            } else {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            noteFailure(cause);
            ctx.close();
        }
    }

    /** A request waiting for its answer. */
    private static final class Pending {
        final Class<?> type;
        final CompletableFuture<?> future;
        final long putBytes;
        /** The request, or null for a pushed block: its buffer belongs to the write. */
        final RelayMessage request;
        /** A pushed block's transfer and number, for messages. */
        final TransferId pushedTransfer;
        final long pushedSeq;
        final long sentNanos = System.nanoTime();
        ScheduledFuture<?> timeout;

        Pending(Class<?> type, CompletableFuture<?> future, long putBytes, RelayMessage request) {
            this.type = type;
            this.future = future;
            this.putBytes = putBytes;
            RelayMessage.PutBlock put = request instanceof RelayMessage.PutBlock p ? p : null;
            this.request = put == null ? request : null;
            this.pushedTransfer = put == null ? null : put.transferId();
            this.pushedSeq = put == null ? -1 : put.seq();
        }

        /**
         * The request as messages name it, made only for a message: formatting one per block would cost the event
         * loop a string per block that nobody reads.
         */
        String what() {
            return request != null ? describe(request) : "PutBlock[transfer=" + pushedTransfer + ", seq=" + pushedSeq + "]";
        }
    }

    private record QueuedPut(TransferId transferId, long seq, ByteBuf block, CompletableFuture<Void> future) {
    }
}

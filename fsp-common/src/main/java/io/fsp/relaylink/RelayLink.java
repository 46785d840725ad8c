package io.fsp.relaylink;

import io.fsp.block.BlockFlags;
import io.fsp.net.NetworkErrors;
import io.fsp.net.SocketBuffers;
import io.fsp.relaylink.wire.BlockReads;
import io.fsp.relaylink.wire.ClearLink;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.fsp.relaylink.wire.RelayFrameDecoder;
import io.fsp.relaylink.wire.RelayFrameEncoder;
import io.fsp.relaylink.wire.RelayMessage;
import io.fsp.relaylink.wire.RelayRole;
import io.fsp.tls.Fingerprint;
import io.fsp.token.CapabilityToken;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntFunction;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * The core of a connection to a relay, whatever it is used for: the TLS connection and its clear link (§3.7), the
 * frame codec, HELLO, and requests matched to their answers by id, each with its timeout. {@link Pushing} and {@link
 * Fetching} are the two roles built on it. Its state is confined to the channel's event loop.
 */
final class RelayLink {
    /** What a role hears of the link. */
    interface Listener {
        /** A pushed block's bytes are no longer in flight: acknowledged, refused or timed out. */
        void settled(long putBytes);

        /** The link closed: everything waiting fails with {@code e}. */
        void closed(RelayException e);
    }

    private final Channel channel;
    private final InetSocketAddress relay;
    private final RelayConnectionConfig config;
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final Map<Integer, Pending> pending = new HashMap<>();
    /** Set by the connection before any frame moves. */
    private Listener listener;
    private int nextId = 1;
    private volatile long minRoundTripNanos = Long.MAX_VALUE; // written on the event loop only
    private RelayRole role;
    private Throwable failure;
    /** The clear link that carries this connection's blocks (§3.7) once bound, else null: blocks go over TLS. */
    private Channel clear;
    private CompletableFuture<Void> binding;

    private RelayLink(Channel channel, InetSocketAddress relay, RelayConnectionConfig config) {
        this.channel = channel;
        this.relay = relay;
        this.config = config;
    }

    /**
     * Connects over TLS, says HELLO (with {@code token}: AUTHORIZE and BIND_REQUEST right behind it) and completes with
     * {@code wrap} of the link once the relay has answered.
     */
    static <C> CompletableFuture<C> connect(InetSocketAddress relay, SslContext ssl, EventLoopGroup group,
                                            RelayConnectionConfig config, CapabilityToken token,
                                            Function<RelayLink, C> wrap) {
        CompletableFuture<C> result = new CompletableFuture<>();
        RelayLink[] holder = new RelayLink[1];
        List<C> wrapped = new ArrayList<>(1);
        Bootstrap bootstrap = SocketBuffers.apply(new Bootstrap(), config.socketBufferBytes())
                .group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) config.connectTimeout().toMillis())
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        RelayLink c = new RelayLink(ch, relay, config);
                        holder[0] = c;
                        wrapped.add(wrap.apply(c)); // its roles listen before any frame moves
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
            RelayLink c = holder[0];
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
                    result.complete(wrapped.get(0));
                }
            });
        });
        return result;
    }

    /** Sets what hears of settled puts and of the close; before any frame moves. */
    void listen(Listener listener) {
        this.listener = listener;
    }

    RelayRole role() {
        return role;
    }

    InetSocketAddress relay() {
        return relay;
    }

    RelayConnectionConfig config() {
        return config;
    }

    EventLoop eventLoop() {
        return channel.eventLoop();
    }

    /**
     * The SHA-256 fingerprint of the certificate the relay presented. A server that reached a relay by its
     * address can announce this to the client, which then pins it.
     */
    Fingerprint relayFingerprint() {
        try {
            Certificate[] chain = channel.pipeline().get(SslHandler.class).engine().getSession().getPeerCertificates();
            return Fingerprint.of((X509Certificate) chain[0]);
        } catch (SSLPeerUnverifiedException e) {
            throw new IllegalStateException("relay " + relay + " presented no certificate", e);
        }
    }

    /** Whether requests can go out: the link is open and nothing broke it. On the event loop. */
    boolean usable() {
        return failure == null && channel.isActive();
    }

    boolean isOpen() {
        return channel.isActive();
    }

    /** Completes when the connection is closed, for whatever reason. */
    CompletableFuture<Void> closeFuture() {
        CompletableFuture<Void> f = new CompletableFuture<>();
        channel.closeFuture().addListener(x -> f.complete(null));
        return f;
    }

    void close() {
        channel.close();
    }

    /** The shortest time a request without block data took to be answered, or 0 before any was. */
    long minRoundTripNanos() {
        long rtt = minRoundTripNanos;
        return rtt == Long.MAX_VALUE ? 0 : rtt;
    }

    // ---------------------------------------------------------------- requests (event loop)

    /** Sends the request {@code make} builds with its id and completes with its answer, of {@code type}. */
    <T> CompletableFuture<T> request(IntFunction<? extends RelayMessage> make, Duration timeout, Class<T> type) {
        CompletableFuture<T> f = new CompletableFuture<>();
        channel.eventLoop().execute(() -> {
            if (!usable()) {
                f.completeExceptionally(closedException());
                return;
            }
            RelayMessage msg = make.apply(nextId());
            send(msg, new Pending(type, f, 0, msg), timeout);
        });
        return f;
    }

    /**
     * Sends a request over the clear link when it carries blocks and one is bound, else over TLS. A block that is not
     * sealed (cipher=none) is pushed over TLS: on a link its bytes would be plaintext on the wire.
     */
    void send(RelayMessage msg, Pending p, Duration timeout) {
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
                listener.settled(p.putBytes);
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

    int nextId() {
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
                            ready.complete(null);
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
                            ready.complete(null);
                        }
                    });
                } else {
                    ready.complete(null); // a client is granted a clear link once its token is accepted
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
    CompletableFuture<Void> bindClearLink() {
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

    private void noteFailure(Throwable cause) {
        if (failure == null) {
            failure = cause;
        }
    }

    RelayException closedException() {
        return RelayClosedException.after(relay, failure);
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
        listener.closed(e);
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
        listener.settled(p.putBytes);
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
}

package io.fsp.relay;

import io.fsp.relay.metrics.RelayMetrics;
import java.util.function.Supplier;
import java.util.Optional;
import io.netty.channel.ChannelHandler;
import io.fsp.net.HostPort;
import io.fsp.net.SocketBuffers;
import io.fsp.metrics.MetricsEndpoint;
import io.fsp.relay.net.BlockCheck;
import io.fsp.relay.net.RelayServerInitializer;
import io.fsp.relay.store.BlockStore;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.tls.SslContexts;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running relay: listening, storing, serving, expiring. {@link #close()} stops it and drops all blocks but those
 * of retained transfers, which the next start restores.
 */
public final class FspRelay implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FspRelay.class);
    private static final Duration MAX_EXPIRY_PERIOD = Duration.ofSeconds(30);

    private final AtomicBoolean closed = new AtomicBoolean();
    private final RelayConfig config;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final ExecutorService disk;
    private final ExecutorService verifier;
    private final BlockStore store;
    private final Channel listener;
    private final RelayServerInitializer sessions;
    private final RelayMetrics metrics;
    private final MetricsEndpoint endpoint;

    private FspRelay(RelayConfig config, EventLoopGroup boss, EventLoopGroup workers, ExecutorService disk,
                     ExecutorService verifier, BlockStore store, Channel listener, RelayServerInitializer sessions,
                     RelayMetrics metrics, MetricsEndpoint endpoint) {
        this.metrics = metrics;
        this.endpoint = endpoint;
        this.config = config;
        this.boss = boss;
        this.workers = workers;
        this.disk = disk;
        this.verifier = verifier;
        this.store = store;
        this.listener = listener;
        this.sessions = sessions;
    }

    /** The configured servers, and those joined ({@link JoinedServers}) as the file says at each handshake. */
    private static PinnedTrustManager trust(RelayConfig config) {
        if (config.stateDir().isEmpty()) {
            return PinnedTrustManager.of(config.trustedServers());
        }
        JoinedServers joined = new JoinedServers(config.stateDir().get());
        return PinnedTrustManager.live(() -> {
            Set<Fingerprint> joinedNow = joined.current();
            if (joinedNow.isEmpty()) {
                return config.trustedServers();
            }
            Set<Fingerprint> all = new HashSet<>(config.trustedServers());
            all.addAll(joinedNow);
            return all;
        });
    }

    public static FspRelay start(RelayConfig config) throws IOException {
        SslContext ssl = SslContexts.serverOptionalPeer(config.identity(), trust(config));
        ExecutorService disk = Executors.newFixedThreadPool(2, new DefaultThreadFactory("fsp-relay-disk", true));
        ExecutorService verifier = Executors.newFixedThreadPool(2, new DefaultThreadFactory("fsp-relay-verify", true));
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("fsp-relay-accept", true),
                NioIoHandler.newFactory());
        EventLoopGroup workers = new MultiThreadIoEventLoopGroup(0, new DefaultThreadFactory("fsp-relay-io", true),
                NioIoHandler.newFactory());
        Channel listener = null;
        RelayServerInitializer sessions = null;
        BlockStore opened = null; // closed (its directory given back) if the start fails after it
        try {
            BlockStore store = new BlockStore(config.store(), disk, config.clock(), PooledByteBufAllocator.DEFAULT);
            opened = store;
            RelayServerInitializer[] open = new RelayServerInitializer[1];
            RelayMetrics metrics = new RelayMetrics(store, () -> open[0] == null ? 0 : open[0].connections());
            // A handler of the embedding program's own, in the pipeline only when it gives one.
            Optional<Supplier<ChannelHandler>> extra = config.handlers() == ConnectionHandlers.NONE ? Optional.empty()
                    : Optional.of(() -> config.handlers().newHandler(store));
            sessions = new RelayServerInitializer(ssl, store, config.limits(), config.clock(), extra,
                    config.connections(),
                    config.verifyBlocks()
                            ? BlockCheck.of(config.limits().maxBlockBytes(), verifier, config.acceptClearBlocks())
                            : BlockCheck.NONE, metrics, config.rates(), workers);
            open[0] = sessions;
            listener = SocketBuffers.applyToAccepted(new ServerBootstrap(), config.socketBuffer())
                    .group(boss, workers).channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.AUTO_READ, false)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 1024 * 1024))
                    .childHandler(sessions)
                    .bind(config.listen()).syncUninterruptibly().channel();
            Duration ttl = config.store().ttl();
            long period = Math.max(100, Math.min(ttl.toMillis() / 4, MAX_EXPIRY_PERIOD.toMillis()));
            workers.next().scheduleAtFixedRate(() -> {
                try {
                    metrics.expired(store.expire());
                } catch (RuntimeException e) {
                    log.warn("expiring transfers failed: {}", e.toString(), e);
                }
            }, period, period, TimeUnit.MILLISECONDS);
            MetricsEndpoint endpoint = config.metrics().isEmpty() ? null
                    : MetricsEndpoint.start(config.metrics().get(), metrics.registry());
            FspRelay relay = new FspRelay(config, boss, workers, disk, verifier, store, listener, sessions, metrics,
                    endpoint);
            log.info("listening on {}, quota {} bytes ({} in memory), ttl {}, max-retain {}, trusting {} server(s),"
                    + " {}{}",
                    HostPort.format(relay.address()), config.store().quotaBytes(), config.store().memoryBytes(), ttl,
                    config.store().maxRetain(),
                    config.trustedServers().size() + (config.stateDir().isEmpty() ? ""
                            : " (and those joined: " + new JoinedServers(config.stateDir().get()).current().size() + ")"),
                    !config.verifyBlocks() ? "blocks unchecked"
                            : config.acceptClearBlocks() ? "checking blocks, clear ones accepted" : "checking blocks",
                    config.rates().any() ? ", capped at " + config.rates().total() + " bytes/s in all and "
                            + config.rates().perTransfer() + " per transfer (0: none)" : "");
            return relay;
        } catch (IOException | RuntimeException e) {
            if (listener != null) {
                listener.close();
            }
            if (sessions != null) {
                sessions.release();
            }
            shutdown(boss, workers);
            disk.shutdownNow();
            verifier.shutdownNow();
            if (opened != null) {
                opened.close();
            }
            throw e;
        }
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    public Fingerprint fingerprint() {
        return config.identity().fingerprint();
    }

    public BlockStore store() {
        return store;
    }

    /** Connections (servers' and clients') open now. */
    public int connections() {
        return sessions.connections();
    }

    public RelayConfig config() {
        return config;
    }

    /** What the relay counts (served by {@code --metrics}). */
    public RelayMetrics metrics() {
        return metrics;
    }

    /** Where the metrics endpoint listens; empty without {@code --metrics}. */
    public Optional<InetSocketAddress> metricsAddress() {
        return Optional.ofNullable(endpoint).map(MetricsEndpoint::address);
    }

    /** Completes when the listening socket closes. */
    public void awaitClose() throws InterruptedException {
        listener.closeFuture().await();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return; // a test's finally block and a shutdown hook may both close it
        }
        listener.close().syncUninterruptibly();
        if (endpoint != null) {
            endpoint.close();
        }
        sessions.release();
        shutdown(boss, workers);
        store.clear();
        verifier.shutdown();
        disk.shutdown();
        try {
            disk.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            store.close();
        } catch (IOException e) {
            log.warn("releasing the store's lock: {}", e.toString());
        }
    }

    private static void shutdown(EventLoopGroup boss, EventLoopGroup workers) {
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}

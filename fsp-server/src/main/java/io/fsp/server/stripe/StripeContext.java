package io.fsp.server.stripe;

import io.fsp.config.Durations;
import io.fsp.extension.FspOption;
import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayConnectionConfig;
import io.fsp.server.auth.UserAccount;
import io.fsp.server.select.CollectRelay;
import io.fsp.server.select.CollectRelays;
import io.fsp.server.select.OverlaySelection;
import io.fsp.server.select.RelayEndpoint;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.KeyMaterial;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.tls.SslContexts;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.ssl.SslContext;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import javax.net.ssl.SSLException;

/**
 * What every striped transfer of one server shares: the server's identity (presented to relays), the static
 * relay list with pinned fingerprints (replaced while the server runs by {@link #relays(List)}), the event loops
 * of relay connections and the threads that run striping engines.
 */
public final class StripeContext implements AutoCloseable {
    private final KeyMaterial identity;
    private volatile List<RelayEndpoint> relays;
    private volatile List<CollectRelay> collectRelays = List.of();
    private volatile Set<Fingerprint> trustedRelays = Set.of();
    private final boolean requireTls;
    private final long maxBlocksPerTransfer;
    private final EventLoopGroup relayLoops;
    private final ExecutorService engines;
    private final SecureRandom random = new SecureRandom();
    private final Map<RelayEndpoint, SslContext> sslByRelay = new ConcurrentHashMap<>();
    private final RelayConnectionConfig relayConfig;
    private volatile OverlaySelection overlay;
    private final RelayPool pool;
    private final Duration maxRetain;
    private volatile Map<String, Duration> retainGrants;
    private final BlockDigestCache keptDigests;
    private final PlanBudget planBudget;

    /**
     * @param maxBlocksPerTransfer the most blocks one transfer may have (more is refused before anything is sent)
     * @param socketBuffer fixed socket buffers of relay connections, 0 for the kernel's autotuning
     * @param clearLinks push blocks over a clear link beside each relay's TLS connection (docs/protocol.md §3.7), or
     *                   over TLS
     * @param maxRetain the longest retention an evacuation may ask relays for ({@code max-retain})
     * @param retainGrants who may evacuate, and for how long ({@code retain-user})
     * @param digestCacheBytes the most bytes of block digests kept between transfers ({@code digest-cache}; 0: none)
     */
    public StripeContext(KeyMaterial identity, List<RelayEndpoint> relays, boolean requireTls, long maxBlocksPerTransfer,
                         int socketBuffer, boolean clearLinks, Duration maxRetain, List<RetainGrant> retainGrants,
                         long digestCacheBytes, long maxPlanned) {
        this.keptDigests = new BlockDigestCache(digestCacheBytes);
        this.planBudget = new PlanBudget(maxPlanned);
        this.maxRetain = maxRetain;
        retainGrants(retainGrants);
        this.identity = identity;
        this.relayConfig = RelayConnectionConfig.DEFAULT.withSocketBufferBytes(socketBuffer).withClearLinks(clearLinks);
        this.relays = List.copyOf(relays);
        this.requireTls = requireTls;
        this.maxBlocksPerTransfer = maxBlocksPerTransfer;
        this.relayLoops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        this.pool = new RelayPool(r -> {
            try {
                return RelayConnection.connect(r.address(), sslFor(r), relayLoops, relayConfig);
            } catch (SSLException e) {
                return CompletableFuture.failedFuture(e);
            }
        });
        AtomicInteger n = new AtomicInteger();
        this.engines = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "fsp-stripe-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** The server's certificate and key: presented to relays, and signing what an evacuation announces. */
    public KeyMaterial identity() {
        return identity;
    }

    /** The static relay list now; a transfer takes it once, when it is planned. */
    public List<RelayEndpoint> relays() {
        return relays;
    }

    /**
     * Replaces the static relay list (a configuration reload). Transfers planned before keep the relays they
     * have; the next FRET takes {@code next}. Connections to added relays are opened in the background; the kept
     * connections of removed relays are closed, idle ones now and busy ones when their transfer gives them back.
     */
    public synchronized void relays(List<RelayEndpoint> next) {
        List<RelayEndpoint> old = relays;
        relays = List.copyOf(next);
        List<RelayEndpoint> removed = old.stream().filter(r -> !next.contains(r)).toList();
        pool.retire(removed);
        removed.forEach(sslByRelay::remove);
        pool.warm(next.stream().filter(r -> !old.contains(r)).toList());
    }

    /** The relays FCOL may collect from now: the static list's, the {@code collect-relay} lines', trusted certificates. */
    public CollectRelays collectRelays() {
        return new CollectRelays(relays, collectRelays, trustedRelays);
    }

    /** Sets the {@code collect-relay} lines (at start and on a configuration reload) and {@code trust-relay} fingerprints. */
    public void collectRelays(List<CollectRelay> allowed, Set<Fingerprint> trusted) {
        collectRelays = List.copyOf(allowed);
        trustedRelays = Set.copyOf(trusted);
    }

    /** The {@code trust-relay} fingerprints now. */
    public Set<Fingerprint> trustedRelays() {
        return trustedRelays;
    }

    /** Sets who may evacuate, and for how long ({@code retain-user}; at start and on a configuration reload). */
    public void retainGrants(List<RetainGrant> grants) {
        retainGrants = grants.stream().collect(java.util.stream.Collectors.toUnmodifiableMap(RetainGrant::user,
                RetainGrant::most));
    }

    /** Relay selection over the Meridian overlay, when the server has one (closed with this context). */
    public Optional<OverlaySelection> overlay() {
        return Optional.ofNullable(overlay);
    }

    public void overlay(OverlaySelection o) {
        this.overlay = o;
    }

    /** Whether FSP commands need a TLS control channel (the default; the keys travel on it). */
    public boolean requireTls() {
        return requireTls;
    }

    /** The plaintext digests of blocks of large files, kept between transfers ({@code digest-cache}). */
    BlockDigestCache keptDigests() {
        return keptDigests;
    }

    /** How many blocks were sealed with a digest kept from an earlier transfer (for the server's metrics). */
    public long digestsReused() {
        return keptDigests.reusedCount();
    }

    /** The files and directories the transfers' plans hold, bounded server-wide ({@code max-planned}). */
    public PlanBudget planBudget() {
        return planBudget;
    }

    /** The most blocks one transfer may have ({@code max-blocks-per-transfer}). */
    public long maxBlocksPerTransfer() {
        return maxBlocksPerTransfer;
    }

    /** The longest retention an evacuation may ask relays for ({@code max-retain}). */
    public Duration maxRetain() {
        return maxRetain;
    }

    /**
     * Why {@code user} may not retain a transfer for {@code retain} (FSPO retain, FRET), or empty if it may: only the
     * users the operator named ({@code retain-user}), never an anonymous one, each for at most its duration.
     */
    public Optional<String> retentionRefusal(Optional<UserAccount> user, Duration retain) {
        if (user.isEmpty() || user.get().isAnonymous()) {
            return Optional.of(FspOption.RETAIN.pair(retain) + " refused: anonymous users may not"
                    + " retain transfers at the relays (evacuate); log in as a user the server's retain-user names");
        }
        Duration most = retainGrants.get(user.get().name());
        if (most == null) {
            return Optional.of(FspOption.RETAIN.pair(retain) + " refused: user " + user.get().name()
                    + " may not retain transfers at the relays (evacuate): the server's configuration has no retain-user"
                    + " line for it");
        }
        if (retain.compareTo(most) > 0) {
            return Optional.of(FspOption.RETAIN.pair(retain) + " refused: user " + user.get().name()
                    + " may retain for at most " + Durations.format(most) + " (retain-user)");
        }
        return Optional.empty();
    }

    public EventLoopGroup relayLoops() {
        return relayLoops;
    }

    public ExecutorService engines() {
        return engines;
    }

    public SecureRandom random() {
        return random;
    }

    public RelayConnectionConfig relayConfig() {
        return relayConfig;
    }

    /**
     * The push window a transfer of {@code blockSize} blocks starts with; {@link PushWindowTuner} fits it to
     * each relay's measured rate once blocks flow.
     */
    public long pushWindowFor(int blockSize) {
        return PushWindowTuner.initial(blockSize, relayConfig.pushWindowBytes());
    }

    /** The largest push window a relay connection gets. */
    long maxPushWindow() {
        return relayConfig.pushWindowBytes();
    }

    /** Connections to relays kept between transfers (see {@link RelayPool}). */
    RelayPool pool() {
        return pool;
    }

    /**
     * Opens connections to the static relays in the background, so that the first transfer does not wait
     * for handshakes.
     */
    public void warmRelayConnections() {
        pool.warm(relays);
    }

    /**
     * A connection to {@code relay} on which {@code start} (OPEN_TRANSFER) succeeded: one kept from an
     * earlier transfer, or a new one. Give it back with {@link #release} when the transfer has placed
     * every block.
     */
    public CompletableFuture<RelayConnection> relayConnection(
            RelayEndpoint relay, Function<RelayConnection,
            CompletableFuture<Void>> start) {
        return pool.take(relay, start);
    }

    /** Ends a transfer's use of {@code c}: kept for the next transfer if it served this one to the end, else closed. */
    public void release(RelayEndpoint relay, RelayConnection c, boolean transferCompleted) {
        if (transferCompleted) {
            pool.give(relay, c);
        } else {
            c.close();
        }
    }

    /** A TLS client context that presents the server's certificate and accepts only {@code relay}'s. */
    public SslContext sslFor(RelayEndpoint relay) throws SSLException {
        SslContext ssl = sslByRelay.get(relay);
        if (ssl == null) {
            ssl = SslContexts.client(PinnedTrustManager.of(Set.of(relay.fingerprint())), Optional.of(identity));
            sslByRelay.put(relay, ssl);
        }
        return ssl;
    }

    @Override
    public void close() {
        OverlaySelection o = overlay;
        if (o != null) {
            o.close();
        }
        pool.close();
        engines.shutdownNow();
        relayLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}

package io.fsp.relay.net;

import io.fsp.net.AddressPrefix;
import io.fsp.relay.metrics.RelayMetrics;
import io.fsp.relay.store.BlockStore;
import io.fsp.relaylink.wire.BlockReads;
import io.fsp.relaylink.wire.ClearLink;
import io.fsp.relaylink.wire.RelayFrameDecoder;
import io.fsp.relaylink.wire.RelayFrameEncoder;
import io.fsp.relaylink.wire.RelayLimits;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.handler.traffic.GlobalTrafficShapingHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.net.InetAddress;
import java.time.Clock;
import io.netty.channel.ChannelHandler;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline of a relay connection: {@code [shaper] → ssl → idle → decoder → encoder → [extra] → session}; a clear
 * link (docs/protocol.md §3.7) has no ssl, and its codec checks and writes frame tags. The TLS
 * context asks for a client certificate but does not require one: a peer that presents a pinned one is a server, a
 * peer that presents none is a client, and a peer that presents an unknown one fails the handshake.
 *
 * <p>Admission ({@link ConnectionPolicy}): at most {@code maxConnections} in all, and at most {@code
 * maxUnauthenticatedPerAddress} from one IP address (an IPv6 address: its /64) that have not yet authenticated; a
 * connection beyond either is closed as soon as it is accepted, before any TLS work. Once a client's token is accepted, {@link
 * ClientAdmission} caps it by address, by transfer and in all, below what is kept for servers.
 *
 * <p>Caps ({@link RateLimits}): with a total cap, one {@link GlobalTrafficShapingHandler} shared by every connection
 * delays what the relay writes (TLS records, as they go on the wire), and its writability tells the session to
 * serve nothing more meanwhile; the rest of the caps is {@link Pacing}'s.
 */
public final class RelayServerInitializer extends ChannelInitializer<SocketChannel> {
    public static final String SHAPER = "shaper";
    public static final String DETECTOR = "detector";
    public static final String SSL = "ssl";
    public static final String IDLE = "idle";
    public static final String DECODER = "decoder";
    public static final String ENCODER = "encoder";
    public static final String EXTRA = "extra";
    public static final String SESSION = "session";
    private static final Logger log = LoggerFactory.getLogger(RelayServerInitializer.class);
    private static final RelayFrameEncoder ENCODER_INSTANCE = new RelayFrameEncoder();
    /** Refusals at accept are logged at most this often, with their count: a flood must not fill the log. */
    private static final long REFUSAL_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** How often the total cap's shaper measures: a quarter second keeps bursts within a quarter second's worth. */
    private static final long SHAPER_CHECK_MILLIS = 250;

    private final SslContext ssl;
    private final BlockStore store;
    private final RelayLimits limits;
    private final Clock clock;
    private final Optional<Supplier<ChannelHandler>> extra;
    private final ConnectionPolicy policy;
    private final BlockCheck blockCheck;
    private final ReadBudget readBudget;
    private final RelayMetrics metrics;
    private final Pacing pacing;
    private final GlobalTrafficShapingHandler shaper;
    private final AtomicInteger connections = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, Integer> unauthenticated = new ConcurrentHashMap<>();
    private final ClientAdmission clients;
    private final ClearLinks links;
    private final AtomicLong refusedSinceLog = new AtomicLong();
    private final AtomicLong lastRefusalLog = new AtomicLong(System.nanoTime() - REFUSAL_LOG_INTERVAL_NANOS);

    /**
     * @param extra a handler for each connection between the frame codec and the session, if any (one a program
     *              embedding the relay gives: {@code ConnectionHandlers})
     * @param timers runs the total cap's shaper (its traffic counter)
     */
    public RelayServerInitializer(SslContext ssl, BlockStore store, RelayLimits limits, Clock clock,
                                  Optional<Supplier<ChannelHandler>> extra, ConnectionPolicy policy,
                                  BlockCheck blockCheck, RelayMetrics metrics, RateLimits rates,
                                  ScheduledExecutorService timers) {
        this.metrics = metrics;
        this.pacing = new Pacing(rates);
        // Writes only: the relay reads a connection when it asks to (Pacing caps what it receives).
        this.shaper = rates.total() > 0 ? new GlobalTrafficShapingHandler(timers, rates.total(), 0, SHAPER_CHECK_MILLIS) : null;
        this.ssl = ssl;
        this.store = store;
        this.limits = limits;
        this.clock = clock;
        this.extra = extra;
        this.policy = policy;
        this.clients = new ClientAdmission(policy);
        this.links = new ClearLinks(policy.authTimeout());
        this.blockCheck = blockCheck;
        // Spilled blocks in flight to clients: a few blocks' worth, at least 64 MiB.
        this.readBudget = new ReadBudget(Math.max(64L << 20, 4L * limits.maxBlockBytes()));
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        if (connections.incrementAndGet() > policy.maxConnections()) {
            connections.decrementAndGet();
            refused(ch, "max-connections", policy.maxConnections() + " connections open (relay option --max-connections)");
            return;
        }
        // A clear link is part of its TLS connection: once known as one, it leaves the count.
        AtomicBoolean counted = new AtomicBoolean(true);
        Runnable uncount = () -> {
            if (counted.getAndSet(false)) {
                connections.decrementAndGet();
            }
        };
        ch.closeFuture().addListener(f -> uncount.run());
        InetAddress address = AddressPrefix.host(ch.remoteAddress().getAddress()); // one IPv6 host holds a /64
        if (!takeUnauthenticatedSlot(address)) {
            refused(ch, "max-unauthenticated-per-address", policy.maxUnauthenticatedPerAddress() + " from that address"
                    + " (an IPv6 address: its /64) not authenticated yet (relay option --max-unauthenticated-per-address)");
            return;
        }
        // The slot is given back once the peer authenticates or the connection closes, whichever comes first.
        AtomicBoolean held = new AtomicBoolean(true);
        Runnable giveBack = () -> {
            if (held.compareAndSet(true, false)) {
                unauthenticated.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
            }
        };
        ch.closeFuture().addListener(f -> giveBack.run());
        if (shaper != null) {
            ch.pipeline().addLast(SHAPER, shaper);
        }
        // TLS or a clear link: the detector adds the handlers of either before the idle timer and leaves.
        BlockReads reads = BlockReads.install(ch);
        ch.pipeline()
                .addLast(DETECTOR, new LinkDetector(links, this::tls, (detector, grant) -> {
                    uncount.run();
                    clear(detector, grant, reads);
                }))
                .addLast(IDLE, new IdleStateHandler(0, 0, policy.idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
        extra.ifPresent(handler -> ch.pipeline().addLast(EXTRA, handler.get()));
        ch.pipeline().addLast(SESSION, new RelaySessionHandler(store, clock, blockCheck, readBudget, policy, giveBack,
                clients, metrics, pacing, links));
    }

    private void tls(ChannelHandlerContext detector) {
        detector.pipeline()
                .addAfter(DETECTOR, SSL, ssl.newHandler(detector.alloc()))
                .addAfter(IDLE, DECODER, new RelayFrameDecoder(limits, false)) // large frames once a server said HELLO
                .addAfter(DECODER, ENCODER, ENCODER_INSTANCE);
    }

    private void clear(ChannelHandlerContext detector, ClearLinks.Grant grant, BlockReads reads) {
        RelayFrameDecoder decoder = new RelayFrameDecoder(limits, false, ClearLink.toRelay(grant.secret()));
        reads.into(decoder);
        detector.pipeline()
                .addAfter(IDLE, DECODER, decoder)
                .addAfter(DECODER, ENCODER, new RelayFrameEncoder(ClearLink.fromRelay(grant.secret())));
        detector.pipeline().get(RelaySessionHandler.class).bind(grant);
    }

    private void refused(SocketChannel ch, String limit, String why) {
        metrics.refused(limit); // before the peer can see the close
        ch.close();
        long count = refusedSinceLog.incrementAndGet();
        long now = System.nanoTime();
        long last = lastRefusalLog.get();
        if (now - last >= REFUSAL_LOG_INTERVAL_NANOS && lastRefusalLog.compareAndSet(last, now)) {
            count = refusedSinceLog.getAndSet(0);
            log.warn("{} connection(s) refused at accept in the last {} s, the latest from {}: {}", count,
                    TimeUnit.NANOSECONDS.toSeconds(REFUSAL_LOG_INTERVAL_NANOS), ch.remoteAddress(), why);
        }
    }

    private boolean takeUnauthenticatedSlot(InetAddress address) {
        boolean[] taken = {false};
        unauthenticated.compute(address, (a, n) -> {
            int count = n == null ? 0 : n;
            if (count >= policy.maxUnauthenticatedPerAddress()) {
                return n;
            }
            taken[0] = true;
            return count + 1;
        });
        return taken[0];
    }

    /** Connections open now, clear links not counted (each is part of a TLS connection). */
    public int connections() {
        return connections.get();
    }

    /** Stops the total cap's traffic counter (the relay is closing). */
    public void release() {
        if (shaper != null) {
            shaper.release();
        }
    }
}

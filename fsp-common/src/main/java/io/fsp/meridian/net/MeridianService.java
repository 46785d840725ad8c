package io.fsp.meridian.net;

import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.MeridianNode;
import io.fsp.meridian.MeridianScheduler;
import io.fsp.meridian.MultiConstraintQuery;
import io.fsp.meridian.QueryResult;
import io.fsp.meridian.wire.MeridianCodec;
import io.fsp.meridian.wire.RingEntry;
import io.fsp.meridian.wire.ServiceInfo;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Meridian node on a UDP socket: what a relay daemon or a server embeds. All node work runs on one
 * event loop; the methods here are thread-safe and return futures.
 *
 * <pre>{@code
 * // a relay: join the overlay
 * MeridianService node = MeridianService.start(new InetSocketAddress(ip, 7400), bootstrapPeers, MeridianConfig.defaults());
 * // a server: ask one entry node for relays near both ends, without joining
 * MeridianService asker = MeridianService.client(new InetSocketAddress(serverIp, 0), MeridianConfig.defaults());
 * List<QueryHit> relays = asker.query(entry, new MultiConstraintQuery(List.of(
 *         new Constraint(asker.address(), 20), new Constraint(clientProbeAddress, 80)), 3)).get().hits();
 * }</pre>
 *
 * Bind a concrete address, not a wildcard: peers learn a node by the address its datagrams come from,
 * and the node must recognise itself in gossip.
 */
public final class MeridianService implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MeridianService.class);

    private final EventLoopGroup group;
    private final Channel channel;
    private final MeridianNode node;
    private final MeridianDatagramHandler handler;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    private MeridianService(EventLoopGroup group, Channel channel, MeridianNode node, MeridianDatagramHandler handler) {
        this.group = group;
        this.channel = channel;
        this.node = node;
        this.handler = handler;
    }

    /** Starts a member node: binds, probes the bootstrap peers and starts gossip. */
    public static MeridianService start(InetSocketAddress bind, List<InetSocketAddress> bootstrapPeers,
                                        MeridianConfig config) throws InterruptedException {
        return open(bind, config, Optional.empty(), bootstrapPeers, true);
    }

    /**
     * As {@link #start}, with {@code extra} in the node's datagram pipeline before its own handler: it sees every
     * datagram both ways (for a program that embeds the node; tests emulate wide-area RTTs on loopback so).
     */
    public static MeridianService start(InetSocketAddress bind, List<InetSocketAddress> bootstrapPeers,
                                        MeridianConfig config, ChannelHandler extra) throws InterruptedException {
        return open(bind, config, Optional.of(extra), bootstrapPeers, true);
    }

    /**
     * Starts a non-member: it answers probes (so it can be a query target) and asks queries through an
     * entry node, but never joins any ring.
     */
    public static MeridianService client(InetSocketAddress bind, MeridianConfig config) throws InterruptedException {
        return open(bind, config, Optional.empty(), List.of(), false);
    }

    private static MeridianService open(InetSocketAddress bind, MeridianConfig config, Optional<ChannelHandler> extra,
                                        List<InetSocketAddress> bootstrap, boolean member) throws InterruptedException {
        if (member && (bind.isUnresolved() || bind.getAddress().isAnyLocalAddress())) {
            throw new IllegalArgumentException("meridian bind: " + bind
                    + " (expected: a concrete address; peers know a node by the source address of its datagrams)");
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            MeridianCodec codec = new MeridianCodec(config.wire());
            MeridianDatagramHandler handler = new MeridianDatagramHandler(codec, config.datagramsPerSecondPerIp());
            Channel channel = UdpChannels.bind(group, bind, config.wire(), handler, extra);
            handler.warmUp(channel);
            InetSocketAddress self = (InetSocketAddress) channel.localAddress();
            EventLoop loop = channel.eventLoop();
            MeridianScheduler scheduler = new MeridianScheduler() {
                @Override
                public long nanoTime() {
                    return System.nanoTime();
                }

                @Override
                public Cancellable schedule(long delayNanos, Runnable task) {
                    var future = loop.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
                    return () -> future.cancel(false);
                }
            };
            MeridianNode node = new MeridianNode(self, config,
                    (to, message) -> handler.send(channel, to, message), scheduler,
                    new Random(new SecureRandom().nextLong()));
            loop.submit(() -> {
                handler.receiver(node::onMessage);
                if (member) {
                    node.start(bootstrap);
                }
            }).sync();
            if (member) {
                log.info("meridian: node on udp {} (bootstrap {})", self, bootstrap);
            } else {
                log.debug("meridian: client on udp {}", self);
            }
            return new MeridianService(group, channel, node, handler);
        } catch (InterruptedException | RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
    }

    /** The UDP address peers reach this node at. */
    public InetSocketAddress address() {
        return node.self();
    }

    /** Multi-constraint query entering the overlay at this node (a member). */
    public CompletableFuture<QueryResult> query(MultiConstraintQuery query) {
        return onLoop(n -> n.query(query));
    }

    /**
     * Multi-constraint query entering the overlay at {@code entry} (member or not). The answer comes
     * back to {@link #address()}, so a service bound to a wildcard address cannot ask.
     */
    public CompletableFuture<QueryResult> query(InetSocketAddress entry, MultiConstraintQuery query) {
        requireConcreteAddress();
        return onLoop(n -> n.query(entry, query));
    }

    private void requireConcreteAddress() {
        if (address().getAddress().isAnyLocalAddress()) {
            throw new IllegalStateException("meridian query from " + address()
                    + ": the answer needs a concrete address to come back to (bind one)");
        }
    }

    /** The member closest to {@code target}, entering the overlay at {@code entry}. */
    public CompletableFuture<QueryResult> closest(InetSocketAddress entry, InetSocketAddress target) {
        requireConcreteAddress();
        return onLoop(n -> n.closest(entry, target));
    }

    /**
     * Advertises the block service this node offers: a relay's TCP port on the same IP address as
     * this node, and its certificate fingerprint.
     */
    public void advertise(ServiceInfo info) {
        channel.eventLoop().submit(() -> node.advertise(info)).syncUninterruptibly();
    }

    /** The block service {@code node} says it offers (empty: none). */
    public CompletableFuture<Optional<ServiceInfo>> service(InetSocketAddress node) {
        requireConcreteAddress();
        return onLoop(n -> n.service(node));
    }

    /** This node's own ring members. */
    public CompletableFuture<List<RingEntry>> rings() {
        return onLoop(n -> CompletableFuture.completedFuture(n.rings().snapshot()));
    }

    /** What {@code entry} knows: its ring members and RTTs. */
    public CompletableFuture<List<RingEntry>> rings(InetSocketAddress entry) {
        return onLoop(n -> n.rings(entry));
    }

    /** Datagrams dropped as malformed or oversized. */
    public long rejected() {
        return handler.rejected();
    }

    /** Probes this node has sent. */
    public CompletableFuture<Long> probesSent() {
        return onLoop(n -> CompletableFuture.completedFuture(n.probesSent()));
    }

    private <T> CompletableFuture<T> onLoop(Function<MeridianNode, CompletableFuture<T>> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        channel.eventLoop().execute(() -> call.apply(node).whenComplete((v, e) -> {
            if (e != null) {
                result.completeExceptionally(e);
            } else {
                result.complete(v);
            }
        }));
        return result;
    }

    /** Stops the node; safe to call more than once (a shutdown hook may follow an explicit close). */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        channel.eventLoop().submit(node::stop).awaitUninterruptibly();
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}

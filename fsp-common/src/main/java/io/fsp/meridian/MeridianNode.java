package io.fsp.meridian;

import io.fsp.meridian.MeridianScheduler.Cancellable;
import io.fsp.meridian.wire.Constraint;
import io.fsp.meridian.wire.MeridianMessage;
import io.fsp.meridian.wire.MeridianMessage.Gossip;
import io.fsp.meridian.wire.MeridianMessage.MeasureReply;
import io.fsp.meridian.wire.MeridianMessage.MeasureRequest;
import io.fsp.meridian.wire.MeridianMessage.Ping;
import io.fsp.meridian.wire.MeridianMessage.Pong;
import io.fsp.meridian.wire.MeridianMessage.Query;
import io.fsp.meridian.wire.MeridianMessage.QueryKind;
import io.fsp.meridian.wire.MeridianMessage.QueryReply;
import io.fsp.meridian.wire.MeridianMessage.RingsReply;
import io.fsp.meridian.wire.MeridianMessage.RingsRequest;
import io.fsp.meridian.wire.MeridianMessage.ServiceReply;
import io.fsp.meridian.wire.MeridianMessage.ServiceRequest;
import io.fsp.meridian.wire.RingEntry;
import io.fsp.meridian.wire.ServiceInfo;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * One Meridian node: rings of peers placed by its own RTT probes, gossip discovery, ring-membership
 * replacement, and the closest-node and multi-constraint queries of paper 004 §3.1. The same code runs
 * over UDP ({@code io.fsp.meridian.net}) and inside the simulator ({@code io.fsp.testkit.meridian.sim}, module fsp-testkit); it
 * sees the world only through {@link MeridianTransport} and {@link MeridianScheduler}.
 *
 * <p>Every method must be called on the scheduler's thread. The node answers and dispatches; {@link Probes} measures,
 * {@link RingMaintenance} keeps the rings and {@link QueryRouting} runs the queries.
 */
public final class MeridianNode {
    private final InetSocketAddress self;
    private final MeridianConfig config;
    private final MeridianTransport transport;
    private final MeridianScheduler scheduler;
    private final Random random;
    private final Rings rings;
    private final Probes probes;
    private final RingMaintenance maintenance;
    private final QueryRouting queries;
    private final Map<Long, PendingRings> ringRequests = new HashMap<>();
    private final Map<Long, PendingService> serviceRequests = new HashMap<>();
    private Optional<ServiceInfo> service = Optional.empty();

    public MeridianNode(InetSocketAddress self, MeridianConfig config, MeridianTransport transport,
                        MeridianScheduler scheduler, Random random) {
        this.self = self;
        this.config = config;
        this.transport = transport;
        this.scheduler = scheduler;
        this.random = random;
        this.rings = new Rings(config);
        NodeContext node = new NodeContext(self, config, transport, scheduler, random, rings);
        this.probes = new Probes(node);
        this.maintenance = new RingMaintenance(node, probes);
        this.queries = new QueryRouting(node, probes);
    }

    public InetSocketAddress self() {
        return self;
    }

    public MeridianConfig config() {
        return config;
    }

    /** Advertises the block service this node offers (answered to SERVICE_REQUEST). */
    public void advertise(ServiceInfo info) {
        service = Optional.of(info);
    }

    public Rings rings() {
        return rings;
    }

    /** RTT probes this node has sent since it started (all causes). */
    public long probesSent() {
        return probes.probesSent();
    }

    // --------------------------------------------------------------------------------- lifecycle

    /** Joins the overlay through {@code bootstrapPeers} and starts gossip and ring maintenance. */
    public void start(List<InetSocketAddress> bootstrapPeers) {
        maintenance.start(bootstrapPeers);
    }

    /** Stops gossip and ring maintenance; the node still answers probes and queries. */
    public void stopMaintenance() {
        maintenance.stop();
    }

    /** Stops everything and fails this node's outstanding queries. */
    public void stop() {
        stopMaintenance();
        queries.stop();
    }

    /**
     * Re-probes every member (keeps RTTs smooth, drops the dead) and, with the hypervolume criterion,
     * re-chooses the primaries of every ring holding more than k members.
     */
    public void replaceMembers() {
        maintenance.replaceMembers();
    }

    // ---------------------------------------------------------------------------------- dispatch

    /** Handles one decoded message from {@code from}. */
    public void onMessage(InetSocketAddress from, MeridianMessage message) {
        if (message instanceof Ping p) {
            transport.send(from, new Pong(p.nonce()));
        } else if (message instanceof Pong p) {
            probes.onPong(from, p);
        } else if (message instanceof Gossip g) {
            maintenance.onGossip(from, g);
        } else if (message instanceof MeasureRequest m) {
            probes.onMeasureRequest(from, m);
        } else if (message instanceof MeasureReply m) {
            probes.onMeasureReply(from, m);
        } else if (message instanceof Query q) {
            queries.onQuery(from, q);
        } else if (message instanceof QueryReply r) {
            queries.onReply(from, r);
        } else if (message instanceof RingsRequest r) {
            List<RingEntry> entries = rings.snapshot();
            int max = config.wire().maxEntries(); // full rings hold more: the innermost members come first
            transport.send(from, new RingsReply(r.requestId(), entries.size() > max ? entries.subList(0, max) : entries));
        } else if (message instanceof ServiceRequest r) {
            transport.send(from, new ServiceReply(r.requestId(), service));
        } else if (message instanceof ServiceReply r) {
            PendingService pending = serviceRequests.get(r.requestId());
            if (pending != null && pending.node.equals(from)) {
                serviceRequests.remove(r.requestId());
                pending.timeout.cancel();
                pending.future.complete(r.service());
            }
        } else if (message instanceof RingsReply r) {
            PendingRings pending = ringRequests.get(r.requestId());
            if (pending != null && pending.entry.equals(from)) {
                ringRequests.remove(r.requestId());
                pending.timeout.cancel();
                pending.future.complete(r.entries());
            }
        }
    }

    // ----------------------------------------------------------------------------------- queries

    /** Finds the overlay node closest to {@code target}, entering the overlay at this node. */
    public CompletableFuture<QueryResult> closest(InetSocketAddress target) {
        return closest(self, target);
    }

    /** Finds the overlay node closest to {@code target}, entering the overlay at {@code entry}. */
    public CompletableFuture<QueryResult> closest(InetSocketAddress entry, InetSocketAddress target) {
        return queries.originate(entry, QueryKind.CLOSEST, List.of(new Constraint(target, 0)), 1);
    }

    /** Runs a multi-constraint query, entering the overlay at this node. */
    public CompletableFuture<QueryResult> query(MultiConstraintQuery query) {
        return query(self, query);
    }

    /**
     * Runs a multi-constraint query entering the overlay at {@code entry}: a node need not be a member
     * to ask, knowing one member is enough (paper 004 §3.1).
     */
    public CompletableFuture<QueryResult> query(InetSocketAddress entry, MultiConstraintQuery query) {
        return queries.originate(entry, QueryKind.MULTI_CONSTRAINT, query.constraints(), query.wanted());
    }

    /** Asks {@code entry} for its ring members and their RTTs as {@code entry} measured them. */
    public CompletableFuture<List<RingEntry>> rings(InetSocketAddress entry) {
        long id = random.nextLong();
        CompletableFuture<List<RingEntry>> future = new CompletableFuture<>();
        Cancellable timeout = scheduler.schedule(config.queryTimeout().toNanos(), () -> {
            if (ringRequests.remove(id) != null) {
                future.completeExceptionally(new TimeoutException("meridian rings: no reply from " + entry
                        + " within " + config.queryTimeout().toMillis() + " ms"));
            }
        });
        ringRequests.put(id, new PendingRings(entry, future, timeout));
        transport.send(entry, new RingsRequest(id));
        return future;
    }

    /**
     * Asks {@code node} which block service it offers. The answer is the node's claim, accepted only
     * from the address asked.
     */
    public CompletableFuture<Optional<ServiceInfo>> service(InetSocketAddress node) {
        long id = random.nextLong();
        CompletableFuture<Optional<ServiceInfo>> future = new CompletableFuture<>();
        Cancellable timeout = scheduler.schedule(2 * config.probeTimeout().toNanos(), () -> {
            if (serviceRequests.remove(id) != null) {
                future.completeExceptionally(new TimeoutException("meridian service: no reply from " + node
                        + " within " + 2 * config.probeTimeout().toMillis() + " ms"));
            }
        });
        serviceRequests.put(id, new PendingService(node, future, timeout));
        transport.send(node, new ServiceRequest(id));
        return future;
    }

    private record PendingService(InetSocketAddress node, CompletableFuture<Optional<ServiceInfo>> future,
                                  Cancellable timeout) { }

    private record PendingRings(InetSocketAddress entry, CompletableFuture<List<RingEntry>> future, Cancellable timeout) { }
}

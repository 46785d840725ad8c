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
import io.fsp.meridian.wire.QueryHit;
import io.fsp.meridian.wire.RingEntry;
import io.fsp.meridian.wire.ServiceInfo;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.DoubleConsumer;

/**
 * One Meridian node: rings of peers placed by its own RTT probes, gossip discovery, ring-membership
 * replacement, and the closest-node and multi-constraint queries of paper 004 §3.1. The same code runs
 * over UDP ({@code io.fsp.meridian.net}) and inside the simulator ({@code io.fsp.testkit.meridian.sim}, module fsp-testkit); it
 * sees the world only through {@link MeridianTransport} and {@link MeridianScheduler}.
 *
 * <p>Every method must be called on the scheduler's thread.
 */
public final class MeridianNode {
    /** Query ids remembered to drop duplicates and loops. */
    private static final int SEEN_QUERIES = 4096;
    /** Own measurements kept for reuse within {@code probeCacheTtl}. */
    private static final int PROBE_CACHE = 1024;

    private final InetSocketAddress self;
    private final MeridianConfig config;
    private final MeridianTransport transport;
    private final MeridianScheduler scheduler;
    private final Random random;
    private final Rings rings;

    private final Map<InetSocketAddress, InFlightProbe> probesByPeer = new HashMap<>();
    private final Map<Long, InFlightProbe> probesByNonce = new HashMap<>();
    private final Map<InetSocketAddress, Sample> recent = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<InetSocketAddress, Sample> eldest) {
            return size() > PROBE_CACHE;
        }
    };
    private final Map<Long, PendingMeasure> measures = new HashMap<>();
    private final Map<Long, PendingQuery> ownQueries = new HashMap<>();
    private final Map<Long, PendingRings> ringRequests = new HashMap<>();
    private final Map<Long, PendingService> serviceRequests = new HashMap<>();
    private Optional<ServiceInfo> service = Optional.empty();
    /** Queries seen, each with the node that passed it here (self once a reply went back: see {@link #reply}). */
    private final Map<Long, InetSocketAddress> seenQueries = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, InetSocketAddress> eldest) {
            return size() > SEEN_QUERIES;
        }
    };

    private List<InetSocketAddress> bootstrap = List.of();
    private long startNanos;
    private Cancellable gossipTimer;
    private Cancellable replacementTimer;
    private boolean running;
    private final ProbeBudget gossipBudget;
    private final ProbeBudget requestBudget;
    private long probesSent;

    public MeridianNode(InetSocketAddress self, MeridianConfig config, MeridianTransport transport,
                        MeridianScheduler scheduler, Random random) {
        this.self = self;
        this.config = config;
        this.transport = transport;
        this.scheduler = scheduler;
        this.random = random;
        this.rings = new Rings(config);
        this.gossipBudget = new ProbeBudget(config.gossipProbesPerSecond(), scheduler.nanoTime());
        this.requestBudget = new ProbeBudget(config.requestProbesPerSecond(), scheduler.nanoTime());
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
        return probesSent;
    }

    // --------------------------------------------------------------------------------- lifecycle

    /** Joins the overlay through {@code bootstrapPeers} and starts gossip and ring maintenance. */
    public void start(List<InetSocketAddress> bootstrapPeers) {
        bootstrap = List.copyOf(bootstrapPeers);
        running = true;
        startNanos = scheduler.nanoTime();
        gossip();
        scheduleReplacement();
    }

    /** Stops gossip and ring maintenance; the node still answers probes and queries. */
    public void stopMaintenance() {
        running = false;
        if (gossipTimer != null) {
            gossipTimer.cancel();
        }
        if (replacementTimer != null) {
            replacementTimer.cancel();
        }
    }

    /** Stops everything and fails this node's outstanding queries. */
    public void stop() {
        stopMaintenance();
        for (PendingQuery p : List.copyOf(ownQueries.values())) {
            p.timeout.cancel();
            p.future.completeExceptionally(new IllegalStateException("meridian node stopped"));
        }
        ownQueries.clear();
    }

    // ---------------------------------------------------------------------------------- dispatch

    /** Handles one decoded message from {@code from}. */
    public void onMessage(InetSocketAddress from, MeridianMessage message) {
        if (message instanceof Ping p) {
            transport.send(from, new Pong(p.nonce()));
        } else if (message instanceof Pong p) {
            onPong(from, p);
        } else if (message instanceof Gossip g) {
            onGossip(from, g);
        } else if (message instanceof MeasureRequest m) {
            onMeasureRequest(from, m);
        } else if (message instanceof MeasureReply m) {
            PendingMeasure pending = measures.get(m.requestId());
            if (pending != null && pending.member.equals(from)) {
                measures.remove(m.requestId());
                pending.timeout.cancel();
                pending.done(m);
            }
        } else if (message instanceof Query q) {
            onQuery(from, q);
        } else if (message instanceof QueryReply r) {
            PendingQuery pending = ownQueries.remove(r.queryId());
            if (pending != null) {
                pending.timeout.cancel();
                pending.future.complete(new QueryResult(r.hits(), r.hops(), r.probes()));
            } else {
                sendBack(r, from);
            }
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

    // ------------------------------------------------------------------------------------ probes

    private record Sample(double rttMs, long atNanos) { }

    private final class InFlightProbe {
        final InetSocketAddress peer;
        final long nonce;
        final long sentNanos;
        final List<DoubleConsumer> waiters = new ArrayList<>(2);
        Cancellable timeout;

        InFlightProbe(InetSocketAddress peer, long nonce, long sentNanos) {
            this.peer = peer;
            this.nonce = nonce;
            this.sentNanos = sentNanos;
        }

        void finish(double rttMs) {
            probesByPeer.remove(peer);
            probesByNonce.remove(nonce);
            for (DoubleConsumer w : waiters) {
                w.accept(rttMs);
            }
        }
    }

    /**
     * Measures the RTT to {@code peer}, reusing a measurement younger than the cache TTL when
     * {@code cached} and joining a probe already in flight: one peer never has two probes out at once.
     * {@code done} gets the RTT in ms or −1 on timeout. Returns true if a probe was actually sent.
     */
    boolean measure(InetSocketAddress peer, boolean cached, DoubleConsumer done) {
        return measure(peer, cached, null, done);
    }

    /** As above; a probe that {@code budget} (if any) has no token for is not sent and reports −1. */
    private boolean measure(InetSocketAddress peer, boolean cached, ProbeBudget budget, DoubleConsumer done) {
        long now = scheduler.nanoTime();
        if (cached) {
            Sample s = recent.get(peer);
            if (s != null && now - s.atNanos <= config.probeCacheTtl().toNanos()) {
                done.accept(s.rttMs);
                return false;
            }
        }
        InFlightProbe inFlight = probesByPeer.get(peer);
        if (inFlight != null) {
            inFlight.waiters.add(done);
            return false;
        }
        if (budget != null && !budget.take(now)) {
            done.accept(-1);
            return false;
        }
        long nonce = random.nextLong();
        InFlightProbe probe = new InFlightProbe(peer, nonce, now);
        probe.waiters.add(done);
        probesByPeer.put(peer, probe);
        probesByNonce.put(nonce, probe);
        probe.timeout = scheduler.schedule(config.probeTimeout().toNanos(), () -> {
            if (probesByNonce.get(nonce) == probe) {
                if (rings.contains(peer)) {
                    rings.probeLost(peer);
                }
                probe.finish(-1);
            }
        });
        probesSent++;
        transport.send(peer, new Ping(nonce));
        return true;
    }

    private void onPong(InetSocketAddress from, Pong pong) {
        InFlightProbe probe = probesByNonce.get(pong.nonce());
        if (probe == null || !probe.peer.equals(from)) {
            return; // unsolicited or from someone we did not probe: never counts as a measurement
        }
        probe.timeout.cancel();
        long now = scheduler.nanoTime();
        double rtt = (now - probe.sentNanos) / 1e6;
        recent.put(from, new Sample(rtt, now));
        if (rings.contains(from)) {
            rings.offer(from, rtt, now);
        }
        probe.finish(rtt);
    }

    /**
     * Measures every target (cached where fresh) on behalf of a query or a measure request, within the
     * request probe budget; {@code done} gets the RTTs and the probes sent.
     */
    private void measureAll(List<InetSocketAddress> targets, BiConsumer<double[], Integer> done) {
        double[] rtts = new double[targets.size()];
        int[] left = {targets.size()};
        int[] sent = {0};
        boolean[] finished = {false};
        if (targets.isEmpty()) {
            done.accept(rtts, 0);
            return;
        }
        for (int i = 0; i < targets.size(); i++) {
            int index = i;
            InetSocketAddress target = targets.get(i);
            DoubleConsumer onRtt = rtt -> {
                rtts[index] = rtt;
                if (--left[0] == 0 && !finished[0]) {
                    finished[0] = true;
                    done.accept(rtts, sent[0]);
                }
            };
            if (target.equals(self)) {
                onRtt.accept(0);
            } else if (measure(target, true, requestBudget, onRtt)) {
                sent[0]++;
            }
        }
    }

    // ------------------------------------------------------------------------------------ gossip

    private void gossip() {
        if (!running) {
            return;
        }
        if (rings.size() == 0) {
            for (InetSocketAddress peer : bootstrap) {
                probeCandidate(peer);
                transport.send(peer, new Gossip(List.of()));
            }
        } else {
            List<List<RingMember>> nonEmpty = new ArrayList<>();
            for (int r = 0; r < rings.ringCount(); r++) {
                List<RingMember> ring = rings.ring(r);
                if (!ring.isEmpty()) {
                    nonEmpty.add(ring);
                }
            }
            // Meridian gossip: to one random member of each ring, one random member of each ring.
            for (List<RingMember> ring : nonEmpty) {
                InetSocketAddress to = ring.get(random.nextInt(ring.size())).peer();
                List<InetSocketAddress> payload = new ArrayList<>();
                for (List<RingMember> other : nonEmpty) {
                    InetSocketAddress p = other.get(random.nextInt(other.size())).peer();
                    if (!p.equals(to)) {
                        payload.add(p);
                    }
                }
                transport.send(to, new Gossip(payload));
            }
        }
        long sinceStart = scheduler.nanoTime() - startNanos;
        long next = sinceStart < config.gossipInitialPeriod().toNanos()
                ? config.gossipInitialInterval().toNanos() : config.gossipInterval().toNanos();
        // Jitter keeps nodes that started together from gossiping in lock step.
        gossipTimer = scheduler.schedule(next / 2 + (long) (random.nextDouble() * next), this::gossip);
    }

    private void onGossip(InetSocketAddress from, Gossip gossip) {
        probeCandidate(from);
        for (InetSocketAddress peer : gossip.peers()) {
            probeCandidate(peer);
        }
    }

    /** Probes a peer learnt from gossip (within the gossip probe budget) and offers it to the rings. */
    private void probeCandidate(InetSocketAddress peer) {
        if (peer.equals(self) || rings.contains(peer) || probesByPeer.containsKey(peer)) {
            return;
        }
        long now = scheduler.nanoTime();
        Sample s = recent.get(peer);
        if (s != null && now - s.atNanos <= config.probeCacheTtl().toNanos()) {
            rings.offer(peer, s.rttMs, now);
            return;
        }
        if (!gossipBudget.take(now)) {
            return;
        }
        measure(peer, false, rtt -> {
            if (rtt >= 0) {
                rings.offer(peer, rtt, scheduler.nanoTime());
            }
        });
    }

    // ------------------------------------------------------------------------------- replacement

    private void scheduleReplacement() {
        long period = config.replacementInterval().toNanos();
        replacementTimer = scheduler.schedule(period / 2 + (long) (random.nextDouble() * period), () -> {
            if (running) {
                replaceMembers();
                scheduleReplacement();
            }
        });
    }

    /**
     * Re-probes every member (keeps RTTs smooth, drops the dead) and, with the hypervolume criterion,
     * re-chooses the primaries of every ring holding more than k members.
     */
    public void replaceMembers() {
        for (RingMember m : List.copyOf(rings.members())) {
            InetSocketAddress peer = m.peer();
            measure(peer, false, rtt -> { });
        }
        if (config.replacement() != RingReplacement.HYPERVOLUME) {
            return;
        }
        for (int r = 0; r < rings.ringCount(); r++) {
            List<RingMember> ring = rings.ring(r);
            if (ring.size() > config.primaryPerRing()) {
                diversify(r, seatsOf(ring));
            }
        }
    }

    /**
     * The k + l longest-serving members of a ring (primaries first), among which the primaries are chosen: members on
     * seats other rings lent (minMembers) stay secondary, and k + l is what one measure request may name.
     */
    private List<RingMember> seatsOf(List<RingMember> ring) {
        int seats = config.primaryPerRing() + config.secondaryPerRing();
        return ring.size() > seats ? ring.subList(0, seats) : ring;
    }

    /** Asks each member of a full ring for its RTTs to the others, then keeps the k most diverse. */
    private void diversify(int ringIndex, List<RingMember> ring) {
        int m = ring.size();
        double[][] latency = new double[m][m];
        for (double[] row : latency) {
            Arrays.fill(row, -1);
        }
        int[] left = {m};
        List<InetSocketAddress> peers = ring.stream().map(RingMember::peer).toList();
        for (int a = 0; a < m; a++) {
            int row = a;
            List<InetSocketAddress> others = new ArrayList<>(peers);
            others.remove(a);
            measureVia(peers.get(a), others, (rtts, probes) -> {
                if (rtts != null) {
                    for (int b = 0, k = 0; b < m; b++) {
                        if (b != row) {
                            latency[row][b] = within(rtts[k++], ring.get(row).rttMs(), ring.get(b).rttMs());
                        }
                    }
                }
                if (--left[0] == 0) {
                    choosePrimaries(ringIndex, ring, latency);
                }
            });
        }
    }

    /**
     * An RTT member a reports to member b, at most twice what the triangle inequality allows from this node's own
     * RTTs to both, 2 (d(P,a) + d(P,b)) + bound slack: a member cannot make itself look much more diverse than that,
     * to be chosen primary. (Twice, as above: real paths take detours.) −1 (not measured) stays.
     */
    private double within(double reported, double toA, double toB) {
        return reported < 0 ? reported : Math.min(2 * (toA + toB) + config.boundSlackMs(), reported);
    }

    private void choosePrimaries(int ringIndex, List<RingMember> ring, double[][] latency) {
        int m = ring.size();
        for (int a = 0; a < m; a++) {
            latency[a][a] = 0;
            for (int b = 0; b < m; b++) {
                if (latency[a][b] < 0) {
                    // Missing: the other direction, else the triangle-inequality lower bound from own RTTs.
                    latency[a][b] = latency[b][a] >= 0 ? latency[b][a]
                            : Math.abs(ring.get(a).rttMs() - ring.get(b).rttMs());
                }
            }
        }
        Set<InetSocketAddress> primaries = new HashSet<>();
        for (int i : Hypervolume.select(latency, config.primaryPerRing())) {
            primaries.add(ring.get(i).peer());
        }
        List<RingMember> now = seatsOf(rings.ring(ringIndex));
        // Members may have come or gone while we measured: only re-choose if the ring is unchanged.
        if (now.size() == m && now.stream().allMatch(x -> ring.stream().anyMatch(y -> y.peer().equals(x.peer())))) {
            rings.choosePrimaries(ringIndex, primaries);
        }
    }

    // -------------------------------------------------------------------------- measure requests

    private final class PendingMeasure {
        final InetSocketAddress member;
        final BiConsumer<double[], Integer> callback;
        final int targets;
        Cancellable timeout;

        PendingMeasure(InetSocketAddress member, int targets, BiConsumer<double[], Integer> callback) {
            this.member = member;
            this.targets = targets;
            this.callback = callback;
        }

        void done(MeasureReply reply) {
            if (reply.rttMs().size() != targets) {
                callback.accept(null, 0);
                return;
            }
            double[] rtts = new double[targets];
            for (int i = 0; i < targets; i++) {
                rtts[i] = reply.rttMs().get(i);
            }
            // A member cannot have spent more probes than targets on our request.
            callback.accept(rtts, Math.min(reply.probesSent(), targets));
        }
    }

    /** Asks {@code member} to measure {@code targets}; {@code done} gets null on timeout. */
    private void measureVia(InetSocketAddress member, List<InetSocketAddress> targets, BiConsumer<double[], Integer> done) {
        long id = random.nextLong();
        PendingMeasure pending = new PendingMeasure(member, targets.size(), done);
        measures.put(id, pending);
        // The member's own probes may take a full probe timeout, so wait for two.
        pending.timeout = scheduler.schedule(2 * config.probeTimeout().toNanos(), () -> {
            if (measures.remove(id) == pending) {
                done.accept(null, 0);
            }
        });
        transport.send(member, new MeasureRequest(id, targets));
    }

    private void onMeasureRequest(InetSocketAddress from, MeasureRequest request) {
        if (request.targets().size() > config.wire().maxTargets()) {
            return;
        }
        measureAll(request.targets(), (rtts, sent) -> {
            List<Double> list = new ArrayList<>(rtts.length);
            for (double r : rtts) {
                list.add(r);
            }
            transport.send(from, new MeasureReply(request.requestId(), list, sent));
        });
    }

    // ----------------------------------------------------------------------------------- queries

    private record PendingQuery(CompletableFuture<QueryResult> future, Cancellable timeout) { }

    /** Finds the overlay node closest to {@code target}, entering the overlay at this node. */
    public CompletableFuture<QueryResult> closest(InetSocketAddress target) {
        return closest(self, target);
    }

    /** Finds the overlay node closest to {@code target}, entering the overlay at {@code entry}. */
    public CompletableFuture<QueryResult> closest(InetSocketAddress entry, InetSocketAddress target) {
        return originate(entry, QueryKind.CLOSEST, List.of(new Constraint(target, 0)), 1);
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
        return originate(entry, QueryKind.MULTI_CONSTRAINT, query.constraints(), query.wanted());
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

    private CompletableFuture<QueryResult> originate(InetSocketAddress entry, QueryKind kind, List<Constraint> constraints,
                                                     int wanted) {
        long id = random.nextLong();
        CompletableFuture<QueryResult> future = new CompletableFuture<>();
        Cancellable timeout = scheduler.schedule(config.queryTimeout().toNanos(), () -> {
            if (ownQueries.remove(id) != null) {
                future.completeExceptionally(new TimeoutException("meridian query: no reply within "
                        + config.queryTimeout().toMillis() + " ms"));
            }
        });
        ownQueries.put(id, new PendingQuery(future, timeout));
        Query query = new Query(id, kind, 0, config.maxHops(), wanted, 0, self, constraints, List.of());
        if (entry.equals(self)) {
            onQuery(self, query);
        } else {
            transport.send(entry, query);
        }
        return future;
    }

    private void onQuery(InetSocketAddress from, Query q) {
        if (seenQueries.putIfAbsent(q.queryId(), from) != null) {
            return; // a loop or a duplicate: the work was done already
        }
        if (q.wanted() < 1 || q.wanted() > MultiConstraintQuery.MAX_WANTED
                || q.constraints().size() > config.wire().maxTargets()) {
            return;
        }
        List<InetSocketAddress> targets = q.constraints().stream().map(Constraint::target).toList();
        measureAll(targets, (own, sent) -> askMembers(q, targets, own, sent));
    }

    /** Step 2 and 3 of §3.1: own distance, then the members within the β-bounds measure theirs. */
    private void askMembers(Query q, List<InetSocketAddress> targets, double[] own, int ownProbes) {
        Hop hop = new Hop(q, own, ownProbes);
        Set<InetSocketAddress> known = new HashSet<>();
        q.hits().forEach(h -> known.add(h.node()));
        known.add(self);
        known.add(q.origin());
        // For a closest-node query the bound is 0, which makes these Meridian's ring [(1−β)d, (1+β)d]
        // (widened by the slack). A target this node cannot reach bounds nothing: its members may reach it.
        List<RingMember> candidates = new ArrayList<>();
        for (RingMember m : rings.members()) {
            if ((m.primary() || config.querySecondaries()) && !known.contains(m.peer())
                    && SolutionSpace.withinBounds(q.constraints(), own, m.rttMs(), config.beta(), config.boundSlackMs())) {
                candidates.add(m);
            }
        }
        // Members that tie on the lower bound (all of them when no target was reachable) are taken at random.
        Collections.shuffle(candidates, random);
        // The probe budget of this hop caps how many members may be asked; ask the most promising first.
        int budget = Math.max(0, (config.maxProbesPerHop() - ownProbes) / targets.size());
        if (candidates.size() > budget) {
            candidates.sort(Comparator.comparingDouble(m -> SolutionSpace.lowerBound(q.constraints(), own, m.rttMs())));
            candidates = new ArrayList<>(candidates.subList(0, budget));
        }
        if (candidates.isEmpty()) {
            decide(hop);
            return;
        }
        hop.left = candidates.size();
        for (RingMember m : candidates) {
            InetSocketAddress peer = m.peer();
            double toMember = m.rttMs();
            measureVia(peer, targets, (rtts, probes) -> {
                if (rtts != null) {
                    hop.replies.put(peer, believed(rtts, own, toMember));
                    hop.probes += probes;
                }
                if (--hop.left == 0) {
                    decide(hop);
                }
            });
        }
    }

    /**
     * What this node believes of the RTTs a member reports to the targets: none below half of what the triangle
     * inequality allows from its own measurements, (|d(P,t) − d(P,j)| − bound slack) / 2, so that a member cannot
     * make itself look much closer to a target than this node's own RTTs to the two permit (a liar 1 ms away cannot
     * claim a target this node sees 100 ms away). Half: real paths break the inequality by detours, and the whole
     * bound cost a point of MCQ success on the PlanetLab matrix (docs/meridian.md). Higher reports are taken as they
     * are: a member that looks farther than it is only loses the query. A target this node could not measure bounds
     * nothing.
     */
    private double[] believed(double[] reported, double[] own, double toMember) {
        double[] rtts = reported.clone();
        for (int i = 0; i < rtts.length; i++) {
            if (rtts[i] >= 0 && own[i] >= 0) {
                rtts[i] = Math.max(rtts[i], (Math.abs(own[i] - toMember) - config.boundSlackMs()) / 2);
            }
        }
        return rtts;
    }

    /** State of one query at this node. */
    private static final class Hop {
        final Query query;
        final double[] own;
        final Map<InetSocketAddress, double[]> replies = new LinkedHashMap<>();
        int probes;
        int left;

        Hop(Query query, double[] own, int probes) {
            this.query = query;
            this.own = own;
            this.probes = probes;
        }
    }

    /** Step 4 of §3.1: collect results, then forward to the member closest to the solution space or stop. */
    private void decide(Hop hop) {
        Query q = hop.query;
        int hops = q.hopsTaken() + 1;
        int probes = q.probes() + hop.probes;
        if (q.kind() == QueryKind.CLOSEST) {
            decideClosest(hop, hops, probes);
            return;
        }
        double s = SolutionSpace.distance(q.constraints(), hop.own);
        List<QueryHit> hits = new ArrayList<>(q.hits());
        Set<InetSocketAddress> inHits = new HashSet<>();
        hits.forEach(h -> inHits.add(h.node()));
        if (s == 0 && inHits.add(self)) {
            hits.add(hit(self, hop.own));
        }
        InetSocketAddress next = null;
        double nextS = Double.POSITIVE_INFINITY;
        for (Map.Entry<InetSocketAddress, double[]> e : hop.replies.entrySet()) {
            double sj = SolutionSpace.distance(q.constraints(), e.getValue());
            if (sj == 0 && inHits.add(e.getKey())) {
                hits.add(hit(e.getKey(), e.getValue()));
            }
            if (sj < nextS) {
                nextS = sj;
                next = e.getKey();
            }
        }
        if (hits.size() > q.wanted()) {
            hits = new ArrayList<>(hits.subList(0, q.wanted()));
        }
        boolean progress = next != null && SolutionSpace.worthForwarding(nextS, s, config.beta());
        if (hits.size() < q.wanted() && progress && hops < Math.min(q.hopLimit(), config.maxHops())) {
            transport.send(next, new Query(q.queryId(), q.kind(), hops, q.hopLimit(), q.wanted(), probes,
                    q.origin(), q.constraints(), hits));
        } else {
            reply(q, hops, probes, hits);
        }
    }

    /**
     * Closest-node discovery as a one-target query with bound 0: s = d², so the §3.1 rule forwards to
     * the closest member j when d_j² < β·d². The answer is the closest node seen on the whole path.
     */
    private void decideClosest(Hop hop, int hops, int probes) {
        Query q = hop.query;
        double d = hop.own[0];
        QueryHit best = q.hits().isEmpty() ? null : q.hits().get(0);
        if (d >= 0 && (best == null || d < best.rttMs().get(0))) {
            best = hit(self, hop.own);
        }
        InetSocketAddress next = null;
        double nextD = Double.POSITIVE_INFINITY;
        for (Map.Entry<InetSocketAddress, double[]> e : hop.replies.entrySet()) {
            double dj = e.getValue()[0];
            if (dj >= 0 && dj < nextD) {
                nextD = dj;
                next = e.getKey();
            }
        }
        if (next != null && (best == null || nextD < best.rttMs().get(0))) {
            best = hit(next, new double[] {nextD});
        }
        List<QueryHit> hits = best == null ? List.of() : List.of(best);
        // A node that could not reach the target forwards to the member that could.
        boolean progress = next != null && (d < 0 || SolutionSpace.worthForwarding(nextD * nextD, d * d, config.beta()));
        if (progress && hops < Math.min(q.hopLimit(), config.maxHops())) {
            transport.send(next, new Query(q.queryId(), q.kind(), hops, q.hopLimit(), q.wanted(), probes,
                    q.origin(), q.constraints(), hits));
        } else {
            reply(q, hops, probes, hits);
        }
    }

    /**
     * Sends the answer back to the node that passed the query here, which passes it back in turn ({@link #sendBack}),
     * down to the entry node, which sends it to the source of the QUERY it received: the querier. Never to the
     * {@code origin} written inside the query: an address a datagram names has not shown it wants the answer, the
     * source of a datagram that passed the cookie check has (docs/protocol.md §4.3). The path back also works
     * where the direct one may not (an unknown pair of a latency matrix, a firewall).
     */
    private void reply(Query q, int hops, int probes, List<QueryHit> hits) {
        QueryReply reply = new QueryReply(q.queryId(), hops, probes, hits);
        if (q.origin().equals(self) && ownQueries.containsKey(q.queryId())) {
            onMessage(self, reply); // this node's own query
        } else {
            sendBack(reply, self);
        }
    }

    /**
     * Passes a reply to a query this node passed on to the node that passed it here (unless that node is
     * {@code sentTo} already), once per query: one message at most, and none for a query it never saw.
     */
    private void sendBack(QueryReply reply, InetSocketAddress sentTo) {
        InetSocketAddress previous = seenQueries.get(reply.queryId());
        if (previous == null || previous.equals(self)) {
            return;
        }
        seenQueries.put(reply.queryId(), self);
        if (!previous.equals(sentTo)) {
            transport.send(previous, reply);
        }
    }

    private static QueryHit hit(InetSocketAddress node, double[] rtts) {
        List<Double> list = new ArrayList<>(rtts.length);
        for (double r : rtts) {
            list.add(r);
        }
        return new QueryHit(node, list);
    }
}

package io.fsp.meridian;

import io.fsp.meridian.MeridianScheduler.Cancellable;
import io.fsp.meridian.wire.MeridianMessage.Gossip;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Keeps a Meridian node's rings: discovers peers by gossip and offers them to the rings once measured, re-probes the
 * members, and (with {@link RingReplacement#HYPERVOLUME}) re-chooses each full ring's primaries for diversity. Called
 * on the scheduler's thread only.
 */
final class RingMaintenance {
    private final NodeContext node;
    private final Probes probes;
    private final ProbeBudget gossipBudget;
    private List<InetSocketAddress> bootstrap = List.of();
    private long startNanos;
    private Cancellable gossipTimer;
    private Cancellable replacementTimer;
    private boolean running;

    RingMaintenance(NodeContext node, Probes probes) {
        this.node = node;
        this.probes = probes;
        this.gossipBudget = new ProbeBudget(node.config().gossipProbesPerSecond(), node.scheduler().nanoTime());
    }

    /** Joins the overlay through {@code bootstrapPeers} and starts gossip and replacement. */
    void start(List<InetSocketAddress> bootstrapPeers) {
        bootstrap = List.copyOf(bootstrapPeers);
        running = true;
        startNanos = node.scheduler().nanoTime();
        gossip();
        scheduleReplacement();
    }

    /** Stops gossip and replacement. */
    void stop() {
        running = false;
        if (gossipTimer != null) {
            gossipTimer.cancel();
        }
        if (replacementTimer != null) {
            replacementTimer.cancel();
        }
    }

    private void gossip() {
        if (!running) {
            return;
        }
        if (node.rings().size() == 0) {
            for (InetSocketAddress peer : bootstrap) {
                probeCandidate(peer);
                node.transport().send(peer, new Gossip(List.of()));
            }
        } else {
            List<List<RingMember>> nonEmpty = new ArrayList<>();
            for (int r = 0; r < node.rings().ringCount(); r++) {
                List<RingMember> ring = node.rings().ring(r);
                if (!ring.isEmpty()) {
                    nonEmpty.add(ring);
                }
            }
            // Meridian gossip: to one random member of each ring, one random member of each ring.
            for (List<RingMember> ring : nonEmpty) {
                InetSocketAddress to = ring.get(node.random().nextInt(ring.size())).peer();
                List<InetSocketAddress> payload = new ArrayList<>();
                for (List<RingMember> other : nonEmpty) {
                    InetSocketAddress p = other.get(node.random().nextInt(other.size())).peer();
                    if (!p.equals(to)) {
                        payload.add(p);
                    }
                }
                node.transport().send(to, new Gossip(payload));
            }
        }
        long sinceStart = node.scheduler().nanoTime() - startNanos;
        long next = sinceStart < node.config().gossipInitialPeriod().toNanos()
                ? node.config().gossipInitialInterval().toNanos() : node.config().gossipInterval().toNanos();
        // Jitter keeps nodes that started together from gossiping in lock step.
        gossipTimer = node.scheduler().schedule(next / 2 + (long) (node.random().nextDouble() * next), this::gossip);
    }

    void onGossip(InetSocketAddress from, Gossip gossip) {
        probeCandidate(from);
        for (InetSocketAddress peer : gossip.peers()) {
            probeCandidate(peer);
        }
    }

    /** Probes a peer learnt from gossip (within the gossip probe budget) and offers it to the rings. */
    private void probeCandidate(InetSocketAddress peer) {
        if (peer.equals(node.self()) || node.rings().contains(peer) || probes.inFlight(peer)) {
            return;
        }
        long now = node.scheduler().nanoTime();
        Probes.Sample s = probes.fresh(peer, now);
        if (s != null) {
            node.rings().offer(peer, s.rttMs(), now);
            return;
        }
        if (!gossipBudget.take(now)) {
            return;
        }
        probes.measure(peer, false, rtt -> {
            if (rtt >= 0) {
                node.rings().offer(peer, rtt, node.scheduler().nanoTime());
            }
        });
    }

    private void scheduleReplacement() {
        long period = node.config().replacementInterval().toNanos();
        replacementTimer = node.scheduler().schedule(period / 2 + (long) (node.random().nextDouble() * period), () -> {
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
    void replaceMembers() {
        for (RingMember m : List.copyOf(node.rings().members())) {
            InetSocketAddress peer = m.peer();
            probes.measure(peer, false, rtt -> { });
        }
        if (node.config().replacement() != RingReplacement.HYPERVOLUME) {
            return;
        }
        for (int r = 0; r < node.rings().ringCount(); r++) {
            List<RingMember> ring = node.rings().ring(r);
            if (ring.size() > node.config().primaryPerRing()) {
                diversify(r, seatsOf(ring));
            }
        }
    }

    /**
     * The k + l longest-serving members of a ring (primaries first), among which the primaries are chosen: members on
     * seats other rings lent (minMembers) stay secondary, and k + l is what one measure request may name.
     */
    private List<RingMember> seatsOf(List<RingMember> ring) {
        int seats = node.config().primaryPerRing() + node.config().secondaryPerRing();
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
            probes.measureVia(peers.get(a), others, (rtts, spent) -> {
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
        return reported < 0 ? reported : Math.min(2 * (toA + toB) + node.config().boundSlackMs(), reported);
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
        for (int i : Hypervolume.select(latency, node.config().primaryPerRing())) {
            primaries.add(ring.get(i).peer());
        }
        List<RingMember> now = seatsOf(node.rings().ring(ringIndex));
        // Members may have come or gone while we measured: only re-choose if the ring is unchanged.
        if (now.size() == m && now.stream().allMatch(x -> ring.stream().anyMatch(y -> y.peer().equals(x.peer())))) {
            node.rings().choosePrimaries(ringIndex, primaries);
        }
    }
}

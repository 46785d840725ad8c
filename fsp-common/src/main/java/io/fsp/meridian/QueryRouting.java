package io.fsp.meridian;

import io.fsp.meridian.MeridianScheduler.Cancellable;
import io.fsp.meridian.wire.Constraint;
import io.fsp.meridian.wire.MeridianMessage.Query;
import io.fsp.meridian.wire.MeridianMessage.QueryKind;
import io.fsp.meridian.wire.MeridianMessage.QueryReply;
import io.fsp.meridian.wire.QueryHit;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

/**
 * The closest-node and multi-constraint queries of paper 004 §3.1 at one node: those it originates, and each hop of
 * those that reach it (own RTTs to the targets, the members within the β-bounds asked for theirs, then forward to the
 * member closest to the solution space or answer back along the path). Called on the scheduler's thread only.
 */
final class QueryRouting {
    /** Query ids remembered to drop duplicates and loops. */
    private static final int SEEN_QUERIES = 4096;

    private final NodeContext node;
    private final Probes probes;
    private final Map<Long, PendingQuery> ownQueries = new HashMap<>();
    /** Queries seen, each with the node that passed it here (self once a reply went back: see {@link #reply}). */
    private final Map<Long, InetSocketAddress> seenQueries = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, InetSocketAddress> eldest) {
            return size() > SEEN_QUERIES;
        }
    };

    QueryRouting(NodeContext node, Probes probes) {
        this.node = node;
        this.probes = probes;
    }

    private record PendingQuery(CompletableFuture<QueryResult> future, Cancellable timeout) { }

    /** Fails this node's outstanding queries. */
    void stop() {
        for (PendingQuery p : List.copyOf(ownQueries.values())) {
            p.timeout.cancel();
            p.future.completeExceptionally(new IllegalStateException("meridian node stopped"));
        }
        ownQueries.clear();
    }

    /** A {@code QUERY_REPLY}: the answer to this node's own query, else passed back along the query's path. */
    void onReply(InetSocketAddress from, QueryReply r) {
        PendingQuery pending = ownQueries.remove(r.queryId());
        if (pending != null) {
            pending.timeout.cancel();
            pending.future.complete(new QueryResult(r.hits(), r.hops(), r.probes()));
        } else {
            sendBack(r, from);
        }
    }

    CompletableFuture<QueryResult> originate(InetSocketAddress entry, QueryKind kind, List<Constraint> constraints,
                                                     int wanted) {
        long id = node.random().nextLong();
        CompletableFuture<QueryResult> future = new CompletableFuture<>();
        Cancellable timeout = node.scheduler().schedule(node.config().queryTimeout().toNanos(), () -> {
            if (ownQueries.remove(id) != null) {
                future.completeExceptionally(new TimeoutException("meridian query: no reply within "
                        + node.config().queryTimeout().toMillis() + " ms"));
            }
        });
        ownQueries.put(id, new PendingQuery(future, timeout));
        Query query = new Query(id, kind, 0, node.config().maxHops(), wanted, 0, node.self(), constraints, List.of());
        if (entry.equals(node.self())) {
            onQuery(node.self(), query);
        } else {
            node.transport().send(entry, query);
        }
        return future;
    }

    void onQuery(InetSocketAddress from, Query q) {
        if (seenQueries.putIfAbsent(q.queryId(), from) != null) {
            return; // a loop or a duplicate: the work was done already
        }
        if (q.wanted() < 1 || q.wanted() > MultiConstraintQuery.MAX_WANTED
                || q.constraints().size() > node.config().wire().maxTargets()) {
            return;
        }
        List<InetSocketAddress> targets = q.constraints().stream().map(Constraint::target).toList();
        probes.measureAll(targets, (own, sent) -> askMembers(q, targets, own, sent));
    }

    /** Step 2 and 3 of §3.1: own distance, then the members within the β-bounds measure theirs. */
    private void askMembers(Query q, List<InetSocketAddress> targets, double[] own, int ownProbes) {
        Hop hop = new Hop(q, own, ownProbes);
        Set<InetSocketAddress> known = new HashSet<>();
        q.hits().forEach(h -> known.add(h.node()));
        known.add(node.self());
        known.add(q.origin());
        // For a closest-node query the bound is 0, which makes these Meridian's ring [(1−β)d, (1+β)d]
        // (widened by the slack). A target this node cannot reach bounds nothing: its members may reach it.
        List<RingMember> candidates = new ArrayList<>();
        for (RingMember m : node.rings().members()) {
            if ((m.primary() || node.config().querySecondaries()) && !known.contains(m.peer())
                    && SolutionSpace.withinBounds(q.constraints(), own, m.rttMs(), node.config().beta(), node.config().boundSlackMs())) {
                candidates.add(m);
            }
        }
        // Members that tie on the lower bound (all of them when no target was reachable) are taken at random.
        Collections.shuffle(candidates, node.random());
        // The probe budget of this hop caps how many members may be asked; ask the most promising first.
        int budget = Math.max(0, (node.config().maxProbesPerHop() - ownProbes) / targets.size());
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
            probes.measureVia(peer, targets, (rtts, spent) -> {
                if (rtts != null) {
                    hop.replies.put(peer, believed(rtts, own, toMember));
                    hop.probes += spent;
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
                rtts[i] = Math.max(rtts[i], (Math.abs(own[i] - toMember) - node.config().boundSlackMs()) / 2);
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
        if (s == 0 && inHits.add(node.self())) {
            hits.add(hit(node.self(), hop.own));
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
        boolean progress = next != null && SolutionSpace.worthForwarding(nextS, s, node.config().beta());
        if (hits.size() < q.wanted() && progress && hops < Math.min(q.hopLimit(), node.config().maxHops())) {
            node.transport().send(next, new Query(q.queryId(), q.kind(), hops, q.hopLimit(), q.wanted(), probes,
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
            best = hit(node.self(), hop.own);
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
        boolean progress = next != null && (d < 0 || SolutionSpace.worthForwarding(nextD * nextD, d * d, node.config().beta()));
        if (progress && hops < Math.min(q.hopLimit(), node.config().maxHops())) {
            node.transport().send(next, new Query(q.queryId(), q.kind(), hops, q.hopLimit(), q.wanted(), probes,
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
        if (q.origin().equals(node.self()) && ownQueries.containsKey(q.queryId())) {
            onReply(node.self(), reply); // this node's own query
        } else {
            sendBack(reply, node.self());
        }
    }

    /**
     * Passes a reply to a query this node passed on to the node that passed it here (unless that node is
     * {@code sentTo} already), once per query: one message at most, and none for a query it never saw.
     */
    private void sendBack(QueryReply reply, InetSocketAddress sentTo) {
        InetSocketAddress previous = seenQueries.get(reply.queryId());
        if (previous == null || previous.equals(node.self())) {
            return;
        }
        seenQueries.put(reply.queryId(), node.self());
        if (!previous.equals(sentTo)) {
            node.transport().send(previous, reply);
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

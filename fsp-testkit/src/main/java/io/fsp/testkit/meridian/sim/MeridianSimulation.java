package io.fsp.testkit.meridian.sim;

import io.fsp.meridian.MeridianNode;
import io.fsp.meridian.MultiConstraintQuery;
import io.fsp.meridian.QueryResult;
import io.fsp.testkit.meridian.sim.SimReport.ClosestStats;
import io.fsp.testkit.meridian.sim.SimReport.McqStats;
import io.fsp.meridian.wire.Constraint;
import io.fsp.meridian.wire.QueryHit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Builds an overlay of {@link MeridianNode}s on a {@link SimNetwork}, lets it gossip for the warm-up,
 * then issues random closest-node and multi-constraint queries and scores every answer against the
 * brute-force truth over the matrix. Maintenance stops before the queries so that every probe counted
 * during a query belongs to it.
 */
public final class MeridianSimulation {
    private static final long QUERY_LIMIT_NANOS = 120_000_000_000L;

    private final LatencyMatrix matrix;
    private final SimOptions options;
    private final Random random;
    private final SimNetwork network;
    private final int[] members;
    private final int[] targets;
    private final MeridianNode[] nodes;
    private final int[] memberAt;
    private final MissTracer tracer;
    private final Map<String, Map<MissTracer.Cause, Integer>> misses = new LinkedHashMap<>();

    public MeridianSimulation(LatencyMatrix matrix, SimOptions options) {
        if (matrix.size() < 10) {
            throw new IllegalArgumentException("matrix size: " + matrix.size() + " (expected: >= 10)");
        }
        this.matrix = matrix;
        this.options = options;
        this.random = new Random(options.seed());
        this.network = new SimNetwork(matrix);
        int[] order = shuffled(matrix.size());
        int targetCount = Math.max(2, (int) Math.round(matrix.size() * options.targetShare()));
        this.targets = Arrays.copyOfRange(order, 0, targetCount);
        this.members = Arrays.copyOfRange(order, targetCount, order.length);
        this.nodes = new MeridianNode[members.length];
        this.memberAt = new int[matrix.size()];
        for (int k = 0; k < members.length; k++) {
            memberAt[members[k]] = k;
        }
        this.tracer = new MissTracer(network, options.config(), location -> nodes[memberAt[location]]);
        network.tap(tracer);
    }

    /**
     * Why the queries of the last {@link #run} missed, by kind ("closest node", "MCQ", "tight") and cause:
     * where the nearest good answer was lost on the query's path.
     */
    public Map<String, String> misses() {
        Map<String, String> text = new LinkedHashMap<>();
        misses.forEach((kind, counts) -> text.put(kind, MissTracer.toText(counts)));
        return text;
    }

    /** {@link #misses()} as counts. */
    Map<String, Map<MissTracer.Cause, Integer>> missCounts() {
        return misses;
    }

    public SimNetwork network() {
        return network;
    }

    public MeridianNode node(int member) {
        return nodes[member];
    }

    /** Matrix locations held out of the overlay (they only answer probes). */
    public int[] targetLocations() {
        return targets.clone();
    }

    public int memberCount() {
        return members.length;
    }

    /** Creates the nodes, bootstraps each from up to three earlier ones and runs the warm-up. */
    public void warmUp() {
        for (int t : targets) {
            network.attachResponder(t);
        }
        for (int k = 0; k < members.length; k++) {
            int location = members[k];
            MeridianNode node = new MeridianNode(network.address(location), options.config(),
                    network.transport(location), network, new Random(random.nextLong()));
            nodes[k] = node;
            network.attach(location, node::onMessage);
            List<java.net.InetSocketAddress> bootstrap = new ArrayList<>();
            for (int b = 0; b < Math.min(3, k); b++) {
                bootstrap.add(network.address(members[random.nextInt(k)]));
            }
            // Nodes join over the first ten seconds, not all at the same instant.
            network.schedule((long) (random.nextDouble() * 10e9), () -> node.start(bootstrap));
        }
        network.runUntil(options.warmup().toNanos());
        for (MeridianNode node : nodes) {
            node.stopMaintenance();
        }
    }

    /** Warms up, runs the queries and scores them. */
    public SimReport run() {
        warmUp();
        long maintenancePings = network.pings();
        double minutes = options.warmup().toNanos() / 60e9;
        double ringMembers = Arrays.stream(nodes).mapToInt(n -> n.rings().size()).average().orElse(0);
        // Each kind of query draws from its own stream, and the random baselines from another, so that two
        // configurations on one seed answer the same queries (paired figures, less noise between them).
        ClosestStats closest = runClosest(new Random(options.seed() * 31 + 1));
        McqStats relay = runMcq(false, new Random(options.seed() * 31 + 2));
        McqStats tight = runMcq(true, new Random(options.seed() * 31 + 3));
        return new SimReport(matrix.name(), members.length, targets.length, ringMembers,
                maintenancePings / (double) members.length / minutes, closest, relay, tight);
    }

    private ClosestStats runClosest(Random draw) {
        int n = options.queries();
        double[] quality = new double[n];
        double[] randomQuality = new double[n];
        double[] probes = new double[n];
        int within = 0;
        int exact = 0;
        int randomWithin = 0;
        int budgetWithin = 0;
        long hops = 0;
        Map<MissTracer.Cause, Integer> causes = MissTracer.emptyCounts();
        misses.put("closest node", causes);
        for (int q = 0; q < n; q++) {
            int target = targets[draw.nextInt(targets.length)];
            int entry = draw.nextInt(members.length);
            double best = Double.POSITIVE_INFINITY;
            for (int m : members) {
                double r = matrix.rtt(m, target);
                if (r >= 0) {
                    best = Math.min(best, r);
                }
            }
            long before = network.pings();
            tracer.start(members[entry]);
            QueryResult result = await(nodes[entry].closest(network.address(target)));
            probes[q] = network.pings() - before;
            hops += result == null ? 0 : result.hops();
            double answer = Double.POSITIVE_INFINITY;
            if (result != null && !result.hits().isEmpty()) {
                int node = network.indexOf(result.hits().get(0).node());
                answer = node < 0 ? answer : matrix.rtt(node, target);
            }
            quality[q] = best > 0 ? answer / best : answer == 0 ? 1 : Double.POSITIVE_INFINITY;
            within += answer <= best * 1.1 ? 1 : 0;
            if (answer > best * 1.1) {
                Set<Integer> good = new HashSet<>();
                for (int m : members) {
                    double r = matrix.rtt(m, target);
                    if (r >= 0 && r <= best * 1.1) {
                        good.add(m);
                    }
                }
                causes.merge(tracer.classify(good, List.of(new Constraint(network.address(target), 0)),
                        new int[] {target}), 1, Integer::sum);
            }
            exact += answer == best ? 1 : 0;
            double rnd = matrix.rtt(members[random.nextInt(members.length)], target);
            randomQuality[q] = rnd / best;
            randomWithin += rnd <= best * 1.1 ? 1 : 0;
            double budgetBest = Double.POSITIVE_INFINITY;
            for (int i = 0; i < Math.max(1, probes[q]); i++) {
                double r = matrix.rtt(members[random.nextInt(members.length)], target);
                if (r >= 0) {
                    budgetBest = Math.min(budgetBest, r);
                }
            }
            budgetWithin += budgetBest <= best * 1.1 ? 1 : 0;
        }
        return new ClosestStats(n, within / (double) n, exact / (double) n, median(quality), mean(probes),
                percentile(probes, 0.9), hops / (double) n, randomWithin / (double) n, median(randomQuality),
                budgetWithin / (double) n);
    }

    private McqStats runMcq(boolean tight, Random draw) {
        int n = options.queries();
        double[] probes = new double[n];
        int success = 0;
        int wrong = 0;
        long hops = 0;
        long solutionSizes = 0;
        double randomSuccess = 0;
        int budgetSuccess = 0;
        Map<MissTracer.Cause, Integer> causes = MissTracer.emptyCounts();
        misses.put(tight ? "tight" : "MCQ", causes);
        for (int q = 0; q < n; q++) {
            int sender = targets[draw.nextInt(targets.length)];
            int receiver;
            do {
                receiver = targets[draw.nextInt(targets.length)];
            } while (receiver == sender && targets.length > 1);
            int[] ts = {sender, receiver};
            double[] bounds = tight ? tightBounds(ts, draw) : relayBounds(ts, draw);
            if (bounds == null) {
                q--; // no member satisfies: draw again (success is measured only where an answer exists)
                continue;
            }
            List<Constraint> constraints = List.of(Constraint.clamped(network.address(sender), bounds[0]),
                    Constraint.clamped(network.address(receiver), bounds[1]));
            bounds = new double[] {constraints.get(0).maxRttMs(), constraints.get(1).maxRttMs()}; // as carried
            int solutions = 0;
            for (int m : members) {
                solutions += satisfies(m, ts, bounds) ? 1 : 0;
            }
            solutionSizes += solutions;
            int entry = draw.nextInt(members.length);
            long before = network.pings();
            tracer.start(members[entry]);
            QueryResult result = await(nodes[entry].query(new MultiConstraintQuery(constraints, options.wanted())));
            probes[q] = network.pings() - before;
            int good = 0;
            if (result != null) {
                hops += result.hops();
                for (QueryHit hit : result.hits()) {
                    int node = network.indexOf(hit.node());
                    if (node >= 0 && satisfies(node, ts, bounds)) {
                        good++;
                    } else {
                        wrong++;
                    }
                }
            }
            success += good > 0 ? 1 : 0;
            if (good == 0) {
                Set<Integer> satisfying = new HashSet<>();
                for (int m : members) {
                    if (satisfies(m, ts, bounds)) {
                        satisfying.add(m);
                    }
                }
                causes.merge(tracer.classify(satisfying, constraints, ts), 1, Integer::sum);
            }
            randomSuccess += solutions / (double) members.length;
            boolean budgetFound = false;
            for (int i = 0; i < Math.max(1, probes[q] / 2); i++) {
                budgetFound |= satisfies(members[random.nextInt(members.length)], ts, bounds);
            }
            budgetSuccess += budgetFound ? 1 : 0;
        }
        return new McqStats(n, success / (double) n, wrong, solutionSizes / (double) n, mean(probes),
                percentile(probes, 0.9), hops / (double) n, randomSuccess / n, budgetSuccess / (double) n);
    }

    /**
     * FSP's relay selection: within a·RTT(s,r) of the sender and b·RTT(s,r) of the receiver, a and b
     * uniform in 0.2..1.2 with a + b >= 1.1 (from "next to the sender" to "halfway"); null if no member
     * satisfies.
     */
    private double[] relayBounds(int[] ts, Random draw) {
        double direct = matrix.rtt(ts[0], ts[1]);
        if (direct <= 0) {
            return null;
        }
        double a;
        double b;
        do { // a + b < 1 could only be met through triangle-inequality violations: not a relay request
            a = 0.2 + draw.nextDouble();
            b = 0.2 + draw.nextDouble();
        } while (a + b < 1.1);
        double[] bounds = {direct * a, direct * b};
        for (int m : members) {
            if (satisfies(m, ts, bounds)) {
                return bounds;
            }
        }
        return null;
    }

    /**
     * Hard queries: bounds shaped by a random member x and scaled so that only the K members that need
     * the least scaling satisfy them (K uniform in 1..maxSolutions; more when RTTs tie).
     */
    private double[] tightBounds(int[] ts, Random draw) {
        int x = members[draw.nextInt(members.length)];
        double[] shape = {Math.max(0.1, matrix.rtt(x, ts[0])), Math.max(0.1, matrix.rtt(x, ts[1]))};
        double[] scale = new double[members.length];
        for (int k = 0; k < members.length; k++) {
            double need = 0;
            for (int i = 0; i < 2; i++) {
                double r = matrix.rtt(members[k], ts[i]);
                need = Math.max(need, r < 0 ? Double.POSITIVE_INFINITY : r / shape[i]);
            }
            scale[k] = need;
        }
        Arrays.sort(scale);
        // When x sits next to a target (RTT floored at 0.1 ms), lambda is a ratio over that tiny RTT, and the
        // other bound, shape x lambda, can reach minutes: it then says "anywhere" for that target, which
        // the caller clamps to the largest bound a query carries without changing which members satisfy.
        double lambda = scale[Math.min(members.length, 1 + draw.nextInt(options.maxSolutions())) - 1];
        // A bound rests on the RTT of the member that set lambda, and shape x (rtt / shape) may round below it:
        // scored with the 1e-6 ms tolerance that member satisfies, yet the node, exact, would not take it.
        return Double.isInfinite(lambda) ? null : new double[] {shape[0] * lambda + 1e-9, shape[1] * lambda + 1e-9};
    }

    private boolean satisfies(int node, int[] ts, double[] bounds) {
        for (int i = 0; i < ts.length; i++) {
            double r = matrix.rtt(node, ts[i]);
            // 1e-6 ms: virtual delays are whole nanoseconds, so a measured RTT may differ by that much.
            if (r < 0 || r > bounds[i] + 1e-6) {
                return false;
            }
        }
        return true;
    }

    /** Runs the network until the query completes; null if it timed out. */
    private QueryResult await(CompletableFuture<QueryResult> future) {
        network.runWhile(() -> !future.isDone(), network.nanoTime() + QUERY_LIMIT_NANOS);
        return future.isDone() && !future.isCompletedExceptionally() ? future.join() : null;
    }

    private int[] shuffled(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
        return a;
    }

    private static double mean(double[] v) {
        return Arrays.stream(v).average().orElse(0);
    }

    private static double median(double[] v) {
        return percentile(v, 0.5);
    }

    private static double percentile(double[] v, double p) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[Math.min(s.length - 1, (int) Math.floor(p * (s.length - 1) + 0.5))];
    }
}

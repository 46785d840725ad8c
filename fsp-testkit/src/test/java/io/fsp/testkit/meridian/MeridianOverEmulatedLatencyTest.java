package io.fsp.testkit.meridian;

import static io.fsp.testkit.meridian.EmulatedLatency.distance;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.meridian.wire.Constraint;
import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.MultiConstraintQuery;
import io.fsp.meridian.wire.QueryHit;
import io.fsp.meridian.QueryResult;
import io.fsp.meridian.wire.RingEntry;
import io.fsp.meridian.net.MeridianService;
import io.fsp.meridian.net.ProbeResponder;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real Meridian nodes on the loopback interfaces over UDP. Each sits at a point of a plane (in ms); a node or target
 * holds back its answer to a probe by its distance to the prober ({@link EmulatedLatency}), so measured RTTs are
 * those distances (there is no netem here). Margins between every node's distance and every bound are at least
 * 10 ms, so scheduling jitter cannot flip an answer.
 */
@Timeout(60)
class MeridianOverEmulatedLatencyTest {
    private static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress("127.0.0.1", 0);
    private static final double[] SENDER = {0, 0};
    private static final double[] RECEIVER = {100, 0};
    private static final double[][] NODES = {
            {10, 0}, {50, 5}, {90, 0}, {45, 25}, {55, -20}, {50, 80}, {0, 60}, {100, 60}};
    private static final double BOUND_SENDER = 70;
    private static final double BOUND_RECEIVER = 70;

    private final EmulatedLatency latency = new EmulatedLatency();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    @Test
    void gossipConvergesAndQueryReturnsExactlyTheSatisfyingNodes() throws Exception {
        MeridianConfig config = MeridianConfig.builder()
                .gossipInitialInterval(Duration.ofMillis(100)).gossipInitialPeriod(Duration.ofSeconds(30))
                .gossipInterval(Duration.ofMillis(300)).replacementInterval(Duration.ofSeconds(1))
                .probeTimeout(Duration.ofMillis(600)).probeCacheTtl(Duration.ofSeconds(1))
                .queryTimeout(Duration.ofSeconds(10))
                .membersPerIp(NODES.length).membersPerSite(NODES.length).build(); // every node shares 127.0.0.1
        ProbeResponder sender = ProbeResponder.start(ANY_LOOPBACK, latency.repliesFrom(SENDER));
        ProbeResponder receiver = ProbeResponder.start(ANY_LOOPBACK, latency.repliesFrom(RECEIVER));
        open.add(sender);
        open.add(receiver);

        List<MeridianService> nodes = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        for (double[] position : NODES) {
            List<InetSocketAddress> bootstrap = nodes.isEmpty() ? List.of() : List.of(nodes.get(0).address());
            MeridianService node = MeridianService.start(ANY_LOOPBACK, bootstrap, config, latency.repliesFrom(position));
            latency.place(node.address().getPort(), position);
            nodes.add(node);
            ports.add(node.address().getPort());
            open.add(node);
        }

        // Gossip converges: every node has measured and placed all seven others.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!nodes.stream().allMatch(n -> n.rings().join().size() == NODES.length - 1)) {
            assertTrue(System.nanoTime() < deadline, "gossip did not converge: "
                    + nodes.stream().map(n -> n.rings().join().size()).toList());
            Thread.sleep(100);
        }

        // RTTs are the emulated distances (plus loopback and scheduling time).
        MeridianService asker = MeridianService.client(ANY_LOOPBACK, config);
        open.add(asker);
        // A scheduling hiccup on a busy machine can inflate one sample; the smoothed RTTs settle as
        // maintenance re-probes every second.
        List<RingEntry> known = List.of();
        List<String> off = List.of("no answer yet");
        while (!off.isEmpty()) {
            assertTrue(System.nanoTime() < deadline + TimeUnit.SECONDS.toNanos(20), "RTTs off: " + off);
            known = asker.rings(nodes.get(0).address()).get(10, TimeUnit.SECONDS);
            off = known.stream().filter(e -> {
                double expected = distance(NODES[0], NODES[ports.indexOf(e.peer().getPort())]);
                return e.rttMs() < expected - 1 || e.rttMs() > expected + 15;
            }).map(RingEntry::toString).toList();
            if (!off.isEmpty()) {
                Thread.sleep(500);
            }
        }
        assertEquals(NODES.length - 1, known.size());

        Set<InetSocketAddress> satisfying = new HashSet<>();
        for (int i = 0; i < NODES.length; i++) {
            if (distance(NODES[i], SENDER) <= BOUND_SENDER && distance(NODES[i], RECEIVER) <= BOUND_RECEIVER) {
                satisfying.add(nodes.get(i).address());
            }
        }
        assertEquals(3, satisfying.size(), "the layout has three satisfying nodes");

        MultiConstraintQuery query = new MultiConstraintQuery(List.of(
                new Constraint(sender.address(), BOUND_SENDER), new Constraint(receiver.address(), BOUND_RECEIVER)), 8);
        for (int entry : new int[] {0, 5, 1}) {
            // Emulated delays only ever add time, so jitter can hide a satisfying node but never make a
            // wrong one appear: every answer must be a subset, and one of three tries exact.
            Set<InetSocketAddress> found = Set.of();
            for (int attempt = 0; attempt < 3 && !found.equals(satisfying); attempt++) {
                if (attempt > 0) {
                    Thread.sleep(config.probeCacheTtl().toMillis() + 100); // fresh probes, not cached ones
                }
                QueryResult result = asker.query(nodes.get(entry).address(), query).get(15, TimeUnit.SECONDS);
                found = result.hits().stream().map(QueryHit::node).collect(Collectors.toSet());
                assertTrue(satisfying.containsAll(found), "entry node " + entry + ": " + result);
                assertTrue(result.probes() <= config.maxHops() * config.maxProbesPerHop());
            }
            assertEquals(satisfying, found, "entry node " + entry);
        }
    }

    @Test
    void worksOverIpv6Loopback() throws Exception {
        MeridianConfig fast = MeridianConfig.builder().gossipInitialInterval(Duration.ofMillis(50))
                .probeCacheTtl(Duration.ofMillis(200)).build();
        InetSocketAddress v6 = new InetSocketAddress("::1", 0);
        // a answers at once, b 40 ms from a, the target 30 ms from b and 60 ms from a.
        double[] atA = {0, 0};
        double[] atB = {40, 0};
        double[] atTarget = {53.75, Math.sqrt(60 * 60 - 53.75 * 53.75)};
        MeridianService a = MeridianService.start(v6, List.of(), fast);
        latency.place(a.address().getPort(), atA);
        open.add(a);
        MeridianService b = MeridianService.start(v6, List.of(a.address()), fast, latency.repliesFrom(atB));
        latency.place(b.address().getPort(), atB);
        open.add(b);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (a.rings().join().isEmpty() || b.rings().join().isEmpty()) {
            assertTrue(System.nanoTime() < deadline, "IPv6 nodes did not meet");
            Thread.sleep(20);
        }
        RingEntry seenByA = a.rings().join().get(0);
        assertEquals(b.address(), seenByA.peer());
        assertTrue(seenByA.rttMs() >= 39, seenByA.toString());
        // Asked through a for the node closest to the target, the overlay answers b.
        ProbeResponder target = ProbeResponder.start(v6, latency.repliesFrom(atTarget));
        open.add(target);
        MeridianService asker = MeridianService.client(v6, fast);
        open.add(asker);
        // The first probes of a fresh JVM path can run tens of ms late on a busy machine: retry with fresh probes.
        QueryResult closest = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            closest = asker.closest(a.address(), target.address()).get(10, TimeUnit.SECONDS);
            if (closest.hits().get(0).node().equals(b.address())) {
                break;
            }
            Thread.sleep(300);
        }
        assertEquals(b.address(), closest.hits().get(0).node(), closest.toString());
    }
}

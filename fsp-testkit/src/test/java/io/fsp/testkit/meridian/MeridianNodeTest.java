package io.fsp.testkit.meridian;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.MeridianNode;
import io.fsp.meridian.MultiConstraintQuery;
import io.fsp.meridian.QueryResult;
import io.fsp.meridian.wire.Constraint;
import io.fsp.meridian.wire.MeridianMessage;
import io.fsp.meridian.wire.MeridianMessage.Gossip;
import io.fsp.meridian.wire.MeridianMessage.MeasureReply;
import io.fsp.meridian.wire.MeridianMessage.MeasureRequest;
import io.fsp.meridian.wire.MeridianMessage.Pong;
import io.fsp.meridian.wire.MeridianMessage.Query;
import io.fsp.meridian.wire.MeridianMessage.QueryKind;
import io.fsp.meridian.wire.MeridianMessage.QueryReply;
import io.fsp.meridian.wire.MeridianMessage.RingsReply;
import io.fsp.meridian.wire.QueryHit;
import io.fsp.meridian.wire.RingEntry;
import io.fsp.testkit.meridian.sim.LatencyMatrix;
import io.fsp.testkit.meridian.sim.MeridianSimulation;
import io.fsp.testkit.meridian.sim.SimNetwork;
import io.fsp.testkit.meridian.sim.SimOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Node behaviour that matters for safety, driven over the simulated network. */
class MeridianNodeTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void placesGossipedPeersOnlyByItsOwnMeasurements() {
        double[][] rtt = {
                {0, 40, 90, 30},
                {40, 0, 50, 50},
                {90, 50, 0, 60},
                {30, 50, 60, 0}};
        SimNetwork net = new SimNetwork(new LatencyMatrix("four", rtt));
        MeridianNode node = new MeridianNode(net.address(0), MeridianConfig.defaults(), net.transport(0), net, new Random(1));
        net.attach(0, node::onMessage);
        net.attachResponder(1); // the stranger who gossips: reachable, so it may be placed at its measured RTT
        net.attachResponder(2); // a real peer it names
        // location 3 runs nothing: a peer the stranger invents never answers
        node.start(List.of());
        var stranger = net.transport(1);
        stranger.send(net.address(0), new Gossip(List.of(net.address(2), net.address(3))));
        // Claims that cannot place anything: an unsolicited pong, a rings reply full of fake RTTs, a stray measure reply.
        stranger.send(net.address(0), new Pong(12345));
        stranger.send(net.address(0), new RingsReply(1, List.of(new RingEntry(1, true, net.address(3), 1.5))));
        stranger.send(net.address(0), new MeasureReply(99, List.of(1.0), 1));
        net.runUntil(10 * SECOND);

        assertEquals(40, node.rings().member(net.address(1)).rttMs(), 1e-6);
        assertEquals(90, node.rings().member(net.address(2)).rttMs(), 1e-6, "placed at the RTT it measured");
        assertFalse(node.rings().contains(net.address(3)), "a peer that never answered is not placed");
        assertEquals(2, node.rings().size());
    }

    @Test
    void aQueryCannotMakeTheOverlaySendMoreProbesThanTheBound() {
        MeridianConfig config = MeridianConfig.builder().maxHops(3).maxProbesPerHop(20).build();
        MeridianSimulation sim = new MeridianSimulation(LatencyMatrix.synthetic(120, 3),
                SimOptions.defaults().withConfig(config).withWarmup(Duration.ofMinutes(3)));
        sim.warmUp();
        SimNetwork net = sim.network();
        int[] targets = sim.targetLocations();
        List<Constraint> impossible = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            impossible.add(new Constraint(net.address(targets[1 + i]), 0.001));
        }
        int attacker = targets[0];
        List<MeridianMessage> replies = new ArrayList<>();
        net.attach(attacker, (from, m) -> replies.add(m));
        Query hostile = new Query(77, QueryKind.MULTI_CONSTRAINT, 0, 255, 64, 0, net.address(attacker), impossible, List.of());
        long before = net.pings();
        for (int i = 0; i < 5; i++) { // the same query again and again: duplicates are dropped
            net.transport(attacker).send(sim.node(0).self(), hostile);
        }
        net.runUntil(net.nanoTime() + 60 * SECOND);
        long probes = net.pings() - before;

        assertTrue(probes > 0, "the query did run");
        assertTrue(probes <= (long) config.maxHops() * config.maxProbesPerHop(),
                "probes: " + probes + " (expected: <= " + config.maxHops() * config.maxProbesPerHop() + ")");
        // Answered once, back along the path, by the entry node to the sender of the query.
        assertEquals(1, replies.stream().filter(m -> m instanceof QueryReply).count(), "answered once");
        QueryReply reply = (QueryReply) replies.stream().filter(m -> m instanceof QueryReply).findFirst().orElseThrow();
        assertTrue(reply.hops() <= config.maxHops());
        assertTrue(reply.hits().isEmpty());
    }

    @Test
    void aQueryIsAnsweredToItsSenderNeverToTheOriginWrittenInIt() {
        MeridianSimulation sim = new MeridianSimulation(LatencyMatrix.synthetic(60, 4),
                SimOptions.defaults().withWarmup(Duration.ofMinutes(2)));
        sim.warmUp();
        SimNetwork net = sim.network();
        int[] targets = sim.targetLocations();
        int sender = targets[0];
        int victim = targets[1];
        List<MeridianMessage> toSender = new ArrayList<>();
        List<MeridianMessage> toVictim = new ArrayList<>();
        net.attach(sender, (from, m) -> toSender.add(m));
        net.attach(victim, (from, m) -> toVictim.add(m));
        Query forged = new Query(78, QueryKind.MULTI_CONSTRAINT, 0, 8, 3, 0, net.address(victim),
                List.of(new Constraint(net.address(targets[2]), 50)), List.of());
        net.transport(sender).send(sim.node(0).self(), forged);
        net.runWhile(() -> toSender.stream().noneMatch(m -> m instanceof QueryReply), net.nanoTime() + 60 * SECOND);

        assertEquals(1, toSender.stream().filter(m -> m instanceof QueryReply).count(), "the sender gets the answer");
        assertEquals(List.of(), toVictim, "the origin named in the query gets nothing");
    }

    @Test
    void aFloodOfMeasureRequestsIsCappedByTheRequestProbeBudget() {
        LatencyMatrix matrix = LatencyMatrix.synthetic(300, 8);
        SimNetwork net = new SimNetwork(matrix);
        MeridianConfig config = MeridianConfig.builder().requestProbesPerSecond(50)
                .probeCacheTtl(Duration.ZERO).build();
        MeridianNode node = new MeridianNode(net.address(0), config, net.transport(0), net, new Random(1));
        net.attach(0, node::onMessage);
        for (int i = 2; i < 300; i++) {
            net.attachResponder(i);
        }
        List<MeridianMessage> replies = new ArrayList<>();
        net.attach(1, (from, m) -> replies.add(m));
        // 100 requests x 16 distinct targets within half a second: 1600 probes if nothing capped them.
        for (int r = 0; r < 100; r++) {
            List<java.net.InetSocketAddress> targets = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                targets.add(net.address(2 + (r * 16 + t) % 298));
            }
            MeasureRequest request = new MeasureRequest(r, targets);
            net.schedule(r * 5_000_000L, () -> net.transport(1).send(net.address(0), request));
        }
        net.runUntil(5 * SECOND);
        assertEquals(100, replies.size(), "every request is answered");
        // Burst of 50 plus at most 50/s refill while requests arrive (well under a second).
        assertTrue(net.pings() <= 100, "pings: " + net.pings() + " (expected: <= 100)");
        long unknown = replies.stream().mapToLong(m -> ((MeasureReply) m).rttMs().stream().filter(x -> x < 0).count()).sum();
        assertTrue(unknown >= 1600 - 100, "answers beyond the budget say unknown: " + unknown);
    }

    @Test
    void aNonMemberAsksThroughAnEntryNode() {
        MeridianSimulation sim = new MeridianSimulation(LatencyMatrix.synthetic(100, 5), SimOptions.defaults());
        sim.warmUp();
        SimNetwork net = sim.network();
        int[] targets = sim.targetLocations();
        int asker = targets[0];
        MeridianNode client = new MeridianNode(net.address(asker), MeridianConfig.defaults(), net.transport(asker), net,
                new Random(2));
        net.attach(asker, client::onMessage); // never started: answers probes, joins no ring
        var future = client.closest(sim.node(3).self(), net.address(targets[1]));
        net.runWhile(() -> !future.isDone(), net.nanoTime() + 60 * SECOND);
        QueryResult result = future.join();
        assertEquals(1, result.hits().size());
        assertNotNull(result.hits().get(0).node());
        assertTrue(result.hops() >= 1 && result.probes() >= 1);
        var rings = client.rings(sim.node(3).self());
        net.runWhile(() -> !rings.isDone(), net.nanoTime() + 10 * SECOND);
        assertEquals(sim.node(3).rings().snapshot(), rings.join());
        assertEquals(0, client.rings().size());
    }

    @Test
    void aTargetTheEntryCannotReachIsFoundThroughItsMembers() {
        // Location 0 has no path to the target 3 (an unknown pair of the matrix); its members 1 and 2 do.
        double[][] rtt = {
                {0, 30, 40, -1},
                {30, 0, 50, 8},
                {40, 50, 0, 60},
                {-1, 8, 60, 0}};
        SimNetwork net = new SimNetwork(new LatencyMatrix("unreachable", rtt));
        List<MeridianNode> nodes = nodes(net, 3);
        net.attachResponder(3);
        nodes.get(0).start(List.of());
        nodes.get(1).start(List.of(net.address(0)));
        nodes.get(2).start(List.of(net.address(0)));
        net.runUntil(30 * SECOND);
        assertEquals(2, nodes.get(0).rings().size());
        nodes.forEach(MeridianNode::stopMaintenance);

        var closest = nodes.get(0).closest(net.address(3));
        var mcq = nodes.get(0).query(new MultiConstraintQuery(List.of(new Constraint(net.address(3), 20)), 1));
        net.runWhile(() -> !closest.isDone() || !mcq.isDone(), net.nanoTime() + 60 * SECOND);
        assertEquals(List.of(net.address(1)), closest.join().hits().stream().map(QueryHit::node).toList());
        assertEquals(List.of(net.address(1)), mcq.join().hits().stream().map(QueryHit::node).toList());
    }

    @Test
    void aReplyTheLastNodeCannotSendToTheOriginComesBackAlongThePath() {
        // The query goes 0 -> 1 -> 2 towards target 3; 2 has no path to the origin 0 (an unknown pair).
        double[][] rtt = {
                {0, 40, -1, 100},
                {40, 0, 45, 50},
                {-1, 45, 0, 5},
                {100, 50, 5, 0}};
        SimNetwork net = new SimNetwork(new LatencyMatrix("one-way-back", rtt));
        List<MeridianNode> nodes = nodes(net, 3);
        net.attachResponder(3);
        nodes.get(0).start(List.of());
        nodes.get(1).start(List.of(net.address(0)));
        nodes.get(2).start(List.of(net.address(1)));
        net.runUntil(30 * SECOND);
        nodes.forEach(MeridianNode::stopMaintenance);

        var closest = nodes.get(0).closest(net.address(3));
        net.runWhile(() -> !closest.isDone(), net.nanoTime() + 10 * SECOND);
        assertTrue(closest.isDone() && !closest.isCompletedExceptionally(), "answered within 10 s");
        QueryResult result = closest.join();
        assertEquals(3, result.hops());
        assertEquals(List.of(net.address(2)), result.hits().stream().map(QueryHit::node).toList());
    }

    /** Nodes at the first {@code count} locations of {@code net}, each attached to its location, none started. */
    private static List<MeridianNode> nodes(SimNetwork net, int count) {
        List<MeridianNode> nodes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            MeridianNode node = new MeridianNode(net.address(i), MeridianConfig.defaults(), net.transport(i), net, new Random(i));
            net.attach(i, node::onMessage);
            nodes.add(node);
        }
        return nodes;
    }
}

package io.fsp.server.select;

import static io.fsp.testkit.meridian.EmulatedLatency.distance;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.net.MeridianService;
import io.fsp.meridian.net.ProbeResponder;
import io.fsp.meridian.wire.ServiceInfo;
import io.fsp.testkit.meridian.EmulatedLatency;
import io.fsp.tls.Fingerprint;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Eight relay nodes of a real Meridian overlay on 127.0.0.1 over UDP, each advertising a block port and a
 * fingerprint. Every node, the sender (server) and the client sit at a point of a plane (in ms) and hold
 * back their probe answers by their distance to the prober (no netem here: EmulatedLatency).
 * Every node's distance is at least 10 ms from every bound, so scheduling jitter cannot flip an answer.
 */
@Timeout(90)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RelaySelectorTest {
    private static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress("127.0.0.1", 0);
    private static final double[] SENDER = {0, 0};
    private static final double[] CLIENT = {100, 0};
    private static final double[][] NODES = {
            {10, 0}, {50, 5}, {90, 0}, {45, 25}, {55, -20}, {50, 80}, {0, 60}, {100, 60}};
    private static final double NEAR_SENDER = 70;
    private static final double NEAR_CLIENT = 70;

    private final EmulatedLatency latency = new EmulatedLatency();
    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<MeridianService> nodes = new ArrayList<>();
    private final List<RelayEndpoint> endpoints = new ArrayList<>();
    private final Set<RelayEndpoint> satisfying = new HashSet<>();
    private MeridianConfig config;
    private ProbeResponder sender;
    private ProbeResponder client;
    private MeridianService asker;

    private static Fingerprint fingerprint(int n) {
        byte[] b = new byte[32];
        b[0] = (byte) 0xF5;
        b[31] = (byte) n;
        return new Fingerprint(b);
    }

    @BeforeAll
    void overlay() throws Exception {
        config = MeridianConfig.builder()
                .gossipInitialInterval(Duration.ofMillis(100)).gossipInitialPeriod(Duration.ofSeconds(30))
                .gossipInterval(Duration.ofMillis(300)).replacementInterval(Duration.ofSeconds(1))
                .probeTimeout(Duration.ofMillis(600)).probeCacheTtl(Duration.ofSeconds(1))
                .queryTimeout(Duration.ofSeconds(10))
                .membersPerIp(NODES.length).membersPerSite(NODES.length).build(); // every node shares 127.0.0.1
        sender = ProbeResponder.start(ANY_LOOPBACK, latency.repliesFrom(SENDER));
        client = ProbeResponder.start(ANY_LOOPBACK, latency.repliesFrom(CLIENT));
        open.add(sender);
        open.add(client);
        for (int i = 0; i < NODES.length; i++) {
            List<InetSocketAddress> bootstrap = nodes.isEmpty() ? List.of() : List.of(nodes.get(0).address());
            MeridianService node = MeridianService.start(ANY_LOOPBACK, bootstrap, config, latency.repliesFrom(NODES[i]));
            open.add(node);
            latency.place(node.address().getPort(), NODES[i]);
            RelayEndpoint endpoint = new RelayEndpoint("127.0.0.1", 20_000 + i, fingerprint(i));
            node.advertise(new ServiceInfo(endpoint.port(), endpoint.fingerprint()));
            nodes.add(node);
            endpoints.add(endpoint);
            if (distance(NODES[i], SENDER) <= NEAR_SENDER && distance(NODES[i], CLIENT) <= NEAR_CLIENT) {
                satisfying.add(endpoint);
            }
        }
        assertEquals(3, satisfying.size(), "the layout has three satisfying relays");
        asker = MeridianService.client(ANY_LOOPBACK, config);
        open.add(asker);

        // Gossip converges: every node has measured and placed all seven others.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!nodes.stream().allMatch(n -> n.rings().join().size() == NODES.length - 1)) {
            assertTrue(System.nanoTime() < deadline, "gossip did not converge: "
                    + nodes.stream().map(n -> n.rings().join().size()).toList());
            Thread.sleep(100);
        }
    }

    @AfterAll
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    private RelaySelector selector(List<RelayEndpoint> staticRelays, Set<Fingerprint> trusted, boolean trustOverlay,
                                   Duration timeout) {
        return new RelaySelector(asker, sender.address(), () -> staticRelays, () -> trusted, trustOverlay, timeout);
    }

    /**
     * Emulated delays only ever add time, so jitter can hide a satisfying relay but never make a wrong one
     * appear: every answer must hold only satisfying relays, and one of three tries must be exact.
     */
    private RelayChoice selectUntil(RelaySelector selector, int entry, int wanted, Set<RelayEndpoint> expected)
            throws Exception {
        RelayChoice choice = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            if (attempt > 0) {
                Thread.sleep(config.probeCacheTtl().toMillis() + 100); // fresh probes, not cached ones
            }
            choice = selector.select(nodes.get(entry).address(), NEAR_SENDER, client.address(), NEAR_CLIENT, wanted)
                    .get(20, TimeUnit.SECONDS);
            List<RelayEndpoint> overlay = choice.relays().subList(0, choice.fromOverlay());
            assertTrue(satisfying.containsAll(overlay), "entry " + entry + ": " + choice);
            if (expected.containsAll(choice.relays()) && choice.relays().size() == expected.size()) {
                break;
            }
        }
        return choice;
    }

    @Test
    void returnsExactlyTheRelaysThatSatisfyTheConstraints() throws Exception {
        Set<Fingerprint> all = new HashSet<>();
        endpoints.forEach(e -> all.add(e.fingerprint()));
        RelaySelector selector = selector(List.of(), all, false, Duration.ofSeconds(15));
        for (int entry : new int[] {0, 5}) {
            RelayChoice choice = selectUntil(selector, entry, 8, satisfying);
            assertEquals(satisfying, Set.copyOf(choice.relays()), "entry " + entry + ": " + choice);
            assertEquals(3, choice.fromOverlay());
            assertEquals(3, choice.relays().size());
        }
    }

    @Test
    void untrustedOverlayRelaysAreLeftOutAndTheStaticListFillsUp() throws Exception {
        RelayEndpoint trustedHit = satisfying.iterator().next();
        RelayEndpoint static1 = new RelayEndpoint("127.0.0.1", 21_001, fingerprint(101));
        RelayEndpoint static2 = new RelayEndpoint("127.0.0.1", 21_002, fingerprint(102));
        RelayEndpoint static3 = new RelayEndpoint("127.0.0.1", 21_003, fingerprint(103));
        RelaySelector selector = selector(List.of(static1, static2, static3), Set.of(trustedHit.fingerprint()), false,
                Duration.ofSeconds(15));
        RelayChoice choice = selectUntil(selector, 1, 3, Set.of(trustedHit, static1, static2));
        assertEquals(List.of(trustedHit, static1, static2), choice.relays(), choice.toString());
        assertEquals(1, choice.fromOverlay());
        assertEquals("overlay gave 1 usable relay(s) of 3", choice.note());
    }

    @Test
    void trustOverlayRelaysAcceptsWhatTheOverlayFinds() throws Exception {
        RelaySelector selector = selector(List.of(), Set.of(), true, Duration.ofSeconds(15));
        RelayChoice choice = selector.select(nodes.get(0).address(), NEAR_SENDER, client.address(), NEAR_CLIENT, 2)
                .get(20, TimeUnit.SECONDS);
        assertTrue(choice.relays().size() >= 1 && choice.relays().size() <= 2, choice.toString());
        assertTrue(satisfying.containsAll(choice.relays()), choice.toString());
        // Without a trusted fingerprint and without the opt-in nothing from the overlay is used.
        RelayChoice strict = selector(List.of(), Set.of(), false, Duration.ofSeconds(15))
                .select(nodes.get(0).address(), NEAR_SENDER, client.address(), NEAR_CLIENT, 2).get(20, TimeUnit.SECONDS);
        assertEquals(List.of(), strict.relays(), strict.toString());
    }

    @Test
    void anEntryThatNeverAnswersMeansTheStaticList() throws Exception {
        RelayEndpoint static1 = new RelayEndpoint("127.0.0.1", 21_001, fingerprint(101));
        RelayEndpoint static2 = new RelayEndpoint("127.0.0.1", 21_002, fingerprint(102));
        // A probe responder answers pings only: a query sent to it gets no reply.
        RelaySelector selector = selector(List.of(static1, static2), Set.of(), false, Duration.ofMillis(800));
        long start = System.nanoTime();
        RelayChoice choice = selector.select(client.address(), NEAR_SENDER, client.address(), NEAR_CLIENT, 4)
                .get(10, TimeUnit.SECONDS);
        assertEquals(List.of(static1, static2), choice.relays());
        assertEquals(0, choice.fromOverlay());
        assertTrue(choice.note().startsWith("overlay query failed"), choice.note());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "selection waited past its timeout");
    }
}

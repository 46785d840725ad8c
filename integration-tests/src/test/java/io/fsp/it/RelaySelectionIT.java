package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.collect.CollectOptions;
import io.fsp.client.collect.CollectSummary;
import io.fsp.client.collect.Collector;
import io.fsp.client.verify.VerificationMode;
import io.fsp.config.ConfigSource;
import io.fsp.extension.FspOptions;
import io.fsp.it.harness.TreeDigests;
import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.net.MeridianService;
import io.fsp.meridian.net.ProbeResponder;
import io.fsp.relay.ConnectionHandlers;
import io.fsp.relay.FspRelay;
import io.fsp.relay.RelayConfig;
import io.fsp.relay.RelayOverlay;
import io.fsp.relay.store.StoreConfig;
import io.fsp.relaylink.wire.RelayLimits;
import io.fsp.server.FspServer;
import io.fsp.server.config.ServerConfig;
import io.fsp.server.config.ServerSettings;
import io.fsp.testkit.meridian.EmulatedLatency;
import io.fsp.tls.Certificates;
import io.fsp.tls.KeyMaterial;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.token.TransferId;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A striped transfer whose relays the server selects over the Meridian overlay: four real relays on
 * 127.0.0.1, each running a Meridian node that holds back its probe answers by its distance to the
 * prober (no netem here), an FSP server with a Meridian endpoint, and a client that asks for relays
 * within 70 ms of it and offers a probe responder. Only two relays are that near; the transfer must use
 * exactly those two, and the file must arrive intact.
 */
@Timeout(120)
class RelaySelectionIT {
    private static final double[] CLIENT = {100, 0};
    /** Relays 1 and 2 lie within 70 ms of the client, 0 and 3 beyond 80 ms (margins of 10 ms for jitter). */
    private static final double[][] RELAYS = {{10, 0}, {50, 5}, {90, 0}, {0, 60}};

    @TempDir
    Path dir;
    private final EmulatedLatency latency = new EmulatedLatency();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @Test
    void theServerStripesOverTheRelaysTheOverlayFindsNearTheClient() throws Exception {
        KeyMaterial serverKey = Certificates.selfSigned("fsp-server");
        Path state = dir.resolve("server-state");
        Files.createDirectories(state);
        Certificates.write(serverKey, state.resolve("server-cert.pem"), state.resolve("server-key.pem"));
        MeridianConfig fast = MeridianConfig.builder()
                .gossipInitialInterval(Duration.ofMillis(100)).gossipInitialPeriod(Duration.ofSeconds(30))
                .gossipInterval(Duration.ofMillis(300)).probeTimeout(Duration.ofMillis(600))
                .probeCacheTtl(Duration.ofSeconds(1))
                .membersPerIp(RELAYS.length).membersPerSite(RELAYS.length).build(); // every relay shares 127.0.0.1
        List<FspRelay> relays = new ArrayList<>();
        List<MeridianService> nodes = new ArrayList<>();
        List<String> fingerprints = new ArrayList<>();
        for (int i = 0; i < RELAYS.length; i++) {
            FspRelay relay = FspRelay.start(new RelayConfig(new InetSocketAddress("127.0.0.1", 0),
                    new StoreConfig(dir.resolve("relay" + i), 1L << 30, 64L << 20, Duration.ofMinutes(10)),
                    Certificates.selfSigned("fsp-relay"), Set.of(serverKey.fingerprint()), RelayLimits.DEFAULT,
                    io.fsp.relay.net.ConnectionPolicy.DEFAULT, true, false, ConnectionHandlers.NONE,
                    Clock.systemUTC()));
            open.add(relay::close);
            relays.add(relay);
            MeridianService node = RelayOverlay.join(relay, new InetSocketAddress("127.0.0.1", 0),
                    nodes.isEmpty() ? List.of() : List.of(nodes.get(0).address()), fast, latency.repliesFrom(RELAYS[i]));
            open.add(node);
            latency.place(node.address().getPort(), RELAYS[i]);
            nodes.add(node);
            fingerprints.add(relay.fingerprint().toString());
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!nodes.stream().allMatch(n -> n.rings().join().size() == RELAYS.length - 1)) {
            assertTrue(System.nanoTime() < deadline, "gossip did not converge");
            Thread.sleep(100);
        }

        // The server knows no static relay: it trusts the four fingerprints when the overlay finds them.
        Path root = dir.resolve("root");
        Files.createDirectories(root);
        TreeDigests.random(root.resolve("one.bin"), 2 * 1024 * 1024 + 777, 3);
        Map<String, List<String>> settings = new LinkedHashMap<>();
        settings.put("listen", List.of("127.0.0.1:0"));
        settings.put("root", List.of(root.toString()));
        settings.put("user", List.of("alice:s3cret-select"));
        settings.put("state-dir", List.of(state.toString()));
        settings.put("login-failure-delay", List.of("0s"));
        settings.put("meridian-entry", List.of("127.0.0.1:" + nodes.get(0).address().getPort()));
        settings.put("trust-relay", fingerprints);
        settings.put("relay-selection-timeout", List.of("15s"));
        FspServer server = FspServer.start(ServerSettings.ALL.load(ConfigSource.of("test", settings)));
        open.add(server::close);
        ProbeResponder client = ProbeResponder.start(new InetSocketAddress("127.0.0.1", 0), latency.repliesFrom(CLIENT));
        open.add(client);

        int port = server.addresses().get(0).getPort();
        Path dest = dir.resolve("out/one.copy");
        Files.createDirectories(dest.getParent());
        CollectOptions options = new CollectOptions("127.0.0.1", port, "alice", "s3cret-select".toCharArray(),
                "alice@127.0.0.1:" + port, "/one.bin", dest, PinnedTrustManager.of(Set.of(server.fingerprint())),
                FspOptions.parse("block-size=64k near-sender=1000 near-client=70 relays=2 client-probe="
                        + client.address().getPort()),
                false, 2, VerificationMode.FIVER, Duration.ofSeconds(10), Duration.ofSeconds(3));
        CollectSummary summary = new Collector(options).run();
        assertTrue(summary.complete(), summary.toText());
        assertTrue(summary.verified(), summary.toText());
        assertEquals(TreeDigests.sha256(root.resolve("one.bin")), TreeDigests.sha256(dest), "file arrives intact");
        TransferId id = TransferId.parse(summary.transferId());
        assertTrue(relays.get(0).store().owner(id).isEmpty(), "relay 0 is 90 ms from the client: not selected");
        assertTrue(relays.get(3).store().owner(id).isEmpty(), "relay 3 is 116 ms from the client: not selected");
        assertEquals(Set.of("relay:0", "relay:1"), summary.blocksBySource().keySet(), summary.toText());
    }
}

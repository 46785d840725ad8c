package io.fsp.it.harness;

import io.fsp.client.collect.CollectOptions;
import io.fsp.client.collect.CollectSummary;
import io.fsp.client.collect.Collector;
import io.fsp.client.verify.VerificationMode;
import io.fsp.config.ConfigSource;
import io.fsp.extension.FspOptions;
import io.fsp.relay.FspRelay;
import io.fsp.relay.RelayConfig;
import io.fsp.relaylink.wire.RelayLimits;
import io.fsp.server.config.ServerConfig;
import io.fsp.server.config.ServerSettings;
import io.fsp.testkit.relay.Fault;
import io.fsp.testkit.relay.FaultPlan;
import java.net.InetSocketAddress;
import java.time.Clock;
import io.fsp.relay.store.StoreConfig;
import io.fsp.server.FspServer;
import io.fsp.tls.Certificates;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.KeyMaterial;
import io.fsp.tls.PinnedTrustManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * A striped-transfer setup on 127.0.0.1 with real sockets and TLS: relays (each with its own faults, possibly
 * none) started first, pinned by fingerprint in the server's relay list, then an FSP server with one user
 * whose root is {@link #root()}; {@link #get} runs the real collector against it.
 */
public final class StripeRig implements AutoCloseable {
    public static final String USER = "alice";
    public static final String PASSWORD = "s3cret-stripe";

    private final Path dir;
    private final List<FspRelay> relays;
    private final FspServer server;
    private final Path root;

    private StripeRig(Path dir, List<FspRelay> relays, FspServer server, Path root) {
        this.dir = dir;
        this.relays = relays;
        this.server = server;
        this.root = root;
    }

    /** Starts one relay per entry of {@code relayFaults} (an empty array is an honest relay). */
    public static StripeRig start(Path dir, long relayMemoryBytes, Fault[]... relayFaults) throws Exception {
        return start(dir, relayMemoryBytes, c -> c, Map.of(), relayFaults);
    }

    /** As {@link #start}, the server and each relay serving metrics on 127.0.0.1 (any port). */
    public static StripeRig startWithMetrics(Path dir, long relayMemoryBytes, Fault[]... relayFaults) throws Exception {
        return start(dir, relayMemoryBytes, c -> c.withMetrics(new InetSocketAddress("127.0.0.1", 0)),
                Map.of("metrics", List.of("127.0.0.1:0")), relayFaults);
    }

    /**
     * As {@link #start}, each relay's configuration changed by {@code relayConfig}, the server's settings added to by
     * {@code serverSettings}.
     */
    public static StripeRig start(Path dir, long relayMemoryBytes, UnaryOperator<RelayConfig> relayConfig,
                                  Map<String, List<String>> serverSettings, Fault[]... relayFaults) throws Exception {
        return start(dir, Certificates.selfSigned("fsp-server"), relayMemoryBytes, relayConfig, serverSettings, a -> a,
                relayFaults);
    }

    /**
     * As {@link #start}, the server told to reach each relay (and to announce it to clients) at {@code front.apply(its
     * address)}: a test puts something on the wire in between.
     */
    public static StripeRig startBehind(Path dir, long relayMemoryBytes, UnaryOperator<InetSocketAddress> front,
                                        Fault[]... relayFaults) throws Exception {
        return start(dir, Certificates.selfSigned("fsp-server"), relayMemoryBytes, c -> c, Map.of(), front, relayFaults);
    }

    /** As {@link #start}, the server with the certificate and key {@code key} (e.g. RSA, as an operator may configure). */
    public static StripeRig start(Path dir, KeyMaterial key, long relayMemoryBytes, Fault[]... relayFaults) throws Exception {
        return start(dir, key, relayMemoryBytes, c -> c, Map.of(), a -> a, relayFaults);
    }

    private static StripeRig start(Path dir, KeyMaterial key, long relayMemoryBytes, UnaryOperator<RelayConfig> relayConfig,
                                   Map<String, List<String>> serverSettings, UnaryOperator<InetSocketAddress> front,
                                   Fault[]... relayFaults) throws Exception {
        Path state = dir.resolve("server-state");
        Files.createDirectories(state);
        Certificates.write(key, state.resolve("server-cert.pem"), state.resolve("server-key.pem"));
        List<FspRelay> relays = new ArrayList<>();
        List<String> specs = new ArrayList<>();
        try {
            for (int i = 0; i < relayFaults.length; i++) {
                RelayConfig config = relayConfig(dir.resolve("relay" + i), key.fingerprint(), relayMemoryBytes,
                        relayFaults[i]);
                FspRelay r = FspRelay.start(relayConfig.apply(config));
                relays.add(r);
                specs.add("127.0.0.1:" + front.apply(r.address()).getPort() + "=" + r.fingerprint());
            }
            Path root = dir.resolve("root");
            Files.createDirectories(root);
            Map<String, List<String>> settings = new LinkedHashMap<>();
            settings.put("listen", List.of("127.0.0.1:0"));
            settings.put("root", List.of(root.toString()));
            settings.put("user", List.of(USER + ":" + PASSWORD));
            settings.put("state-dir", List.of(state.toString()));
            settings.put("relay", specs);
            settings.put("login-failure-delay", List.of("0s"));
            settings.put("retain-user", List.of(USER + "=30d")); // the rig's user may evacuate
            settings.putAll(serverSettings);
            ServerConfig config = ServerSettings.ALL.load(ConfigSource.of("test", settings));
            return new StripeRig(dir, relays, FspServer.start(config), root);
        } catch (Exception e) {
            relays.forEach(FspRelay::close);
            throw e;
        }
    }

    /**
     * A relay on 127.0.0.1 (any port) in this process, trusting {@code server}, storing in {@code store}, with a new
     * certificate. Clear blocks are accepted, so that transfers with cipher=none can be tested through relays too.
     */
    public static FspRelay startRelay(Path store, Fingerprint server, long memoryBytes, Fault... faults)
            throws java.io.IOException {
        return FspRelay.start(relayConfig(store, server, memoryBytes, faults));
    }

    private static RelayConfig relayConfig(Path store, Fingerprint server, long memoryBytes, Fault... faults) {
        return new RelayConfig(new InetSocketAddress("127.0.0.1", 0),
                new StoreConfig(store, 1L << 30, memoryBytes, Duration.ofMinutes(10)),
                Certificates.selfSigned("fsp-relay"), Set.of(server), RelayLimits.DEFAULT,
                io.fsp.relay.net.ConnectionPolicy.DEFAULT, true, true, new FaultPlan(List.of(faults)).handlers(),
                Clock.systemUTC());
    }

    /** A change of each relay's store (quota, --transfer-space, --max-retain), for {@link #start}'s relayConfig. */
    public static UnaryOperator<RelayConfig> store(UnaryOperator<StoreConfig> change) {
        return c -> new RelayConfig(c.listen(), change.apply(c.store()), c.identity(), c.trustedServers(), c.limits(),
                c.connections(), c.verifyBlocks(), c.acceptClearBlocks(), c.handlers(), c.clock(), c.socketBuffer(),
                c.metrics(), c.rates());
    }

    public Path root() {
        return root;
    }

    public FspServer server() {
        return server;
    }

    public List<FspRelay> relays() {
        return relays;
    }

    /**
     * Stops relay {@code i} and starts it again on the same port with the same certificate and an empty store,
     * as an operator's restart would; the server's kept connections to it are then dead.
     */
    public FspRelay restartRelay(int i) throws java.io.IOException {
        FspRelay old = relays.get(i);
        InetSocketAddress at = old.address();
        RelayConfig c = old.config();
        old.close();
        FspRelay fresh = FspRelay.start(new RelayConfig(at, c.store(), c.identity(), c.trustedServers(), c.limits(),
                c.connections(), c.verifyBlocks(), c.acceptClearBlocks(), c.handlers(), c.clock()));
        relays.set(i, fresh);
        return fresh;
    }

    public int port() {
        return server.addresses().get(0).getPort();
    }

    /** The collector's options for {@code remote} into {@code dest}. */
    public CollectOptions options(String remote, Path dest, VerificationMode mode, boolean direct, Duration relayTimeout,
                                  String... fspOptions) {
        return new CollectOptions("127.0.0.1", port(), USER, PASSWORD.toCharArray(), USER + "@127.0.0.1:" + port(), remote,
                dest, PinnedTrustManager.of(Set.of(server.fingerprint())), FspOptions.parse(String.join(" ", fspOptions)), direct, 2, mode,
                relayTimeout, Duration.ofSeconds(3));
    }

    /** {@code fsp get} in this process: FRET {@code remote} into {@code dest}, FIVER-verified. */
    public CollectSummary get(String remote, Path dest, boolean direct, String... fspOptions) throws Exception {
        return new Collector(options(remote, dest, VerificationMode.FIVER, direct, Duration.ofSeconds(10), fspOptions)).run();
    }

    @Override
    public void close() {
        server.close();
        for (FspRelay r : relays) {
            try {
                r.close();
            } catch (RuntimeException alreadyClosed) {
                // a test stopped this relay itself; FspRelay.close is not idempotent
            }
        }
    }
}

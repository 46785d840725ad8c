package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.ControlConnection;
import io.fsp.it.harness.ExternalTool;
import io.fsp.it.harness.FspCommand;
import io.fsp.it.harness.RelayProcess;
import io.fsp.it.harness.ServerProcess;
import io.fsp.it.harness.Transcript;
import io.fsp.it.harness.TreeDigests;
import io.fsp.metrics.Scrape;
import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayConnectionConfig;
import io.fsp.relaylink.RelayRefusedException;
import io.fsp.tls.Certificates;
import io.fsp.tls.KeyMaterial;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.tls.SslContexts;
import io.fsp.token.TokenKey;
import io.fsp.token.TransferId;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard and the Prometheus alert rules of conf/ ask only for series that a relay and a server really
 * serve: every metric name in them is one a scrape of the two daemons (real processes) names (counters with their
 * {@code _total}, histograms with their {@code _bucket}, {@code _sum} and {@code _count}); and promtool accepts the
 * rules.
 */
@Timeout(180)
class DashboardMetricsIT {
    private static final Path CONF = Path.of(System.getProperty("user.dir")).resolve("../conf").normalize();
    private static final List<Path> FILES = List.of(CONF.resolve("grafana/fsp.json"),
            CONF.resolve("prometheus/fsp-alerts.yml"));
    private static final Pattern METRIC = Pattern.compile("\\bfsp_[a-z0-9_]+");
    private static final String PASSWORD = "dashboard-secret";

    @TempDir
    Path dir;
    final Transcript transcript = new Transcript();

    /**
     * A striped {@code fsp get} through the relay, an FTP command the server refuses and a request the relay refuses
     * first: a family with labels is served only once one of its series has counted something.
     */
    @Test
    void dashboardAndAlertsUseOnlyExportedMetrics() throws Exception {
        Path state = Files.createDirectories(dir.resolve("server-state"));
        KeyMaterial key = Certificates.selfSigned("fsp-server");
        Certificates.write(key, state.resolve("server-cert.pem"), state.resolve("server-key.pem"));
        Path root = Files.createDirectories(dir.resolve("root"));
        TreeDigests.random(root.resolve("data.bin"), 600_000, 1);
        Set<String> exported = new TreeSet<>();
        try (RelayProcess relay = RelayProcess.start(dir.resolve("relay"), key.fingerprint(), "--metrics", "127.0.0.1:0");
             ServerProcess server = ServerProcess.start(root, List.of("--listen", "127.0.0.1:0", "--root",
                     root.toString(), "--user", "alice:" + PASSWORD, "--state-dir", state.toString(), "--metrics",
                     "127.0.0.1:0", "--relay", "127.0.0.1:" + relay.address().getPort() + "=" + relay.fingerprint()), 1)) {
            Path password = Files.writeString(Files.createFile(dir.resolve("password"),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))), PASSWORD + "\n");
            FspCommand.Result get = FspCommand.run(List.of("get", "fsp://alice@127.0.0.1:" + server.port() + "/data.bin",
                    "-o", dir.resolve("data.copy").toString(), "--config", "none", "--trust", key.fingerprint().toString(),
                    "--password-file", password.toString(), "--block-size", "64k"));
            assertEquals(0, get.exit(), get.toString());
            try (ControlConnection c = ControlConnection.open(server.ipv4(), transcript)) {
                int refused = c.send("XYZZY").code();
                assertTrue(refused >= 500, "XYZZY answered " + refused);
            }
            refusedUntrustedServer(relay);
            exported.addAll(names(scrape(server::output, "fsp-server")));
            exported.addAll(names(scrape(relay::output, "fsp-relay")));
        }
        assertTrue(exported.contains("fsp_relay_errors_total") && exported.contains("fsp_server_blocks_placed_total"),
                exported.toString());
        for (Path file : FILES) {
            Set<String> used = new TreeSet<>();
            Matcher m = METRIC.matcher(Files.readString(file));
            while (m.find()) {
                used.add(m.group());
            }
            assertTrue(used.size() >= 10, file + ": " + used);
            used.removeAll(exported);
            assertEquals(Set.of(), used, file + " names series the daemons do not serve (they serve " + exported + ")");
        }
    }

    /** A peer without the server's certificate asks the relay to open a transfer. */
    private static void refusedUntrustedServer(RelayProcess relay) throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (RelayConnection c = RelayConnection.connect(relay.address(),
                SslContexts.client(PinnedTrustManager.of(Set.of(relay.fingerprint())), Optional.empty()),
                group, RelayConnectionConfig.DEFAULT).get(10, TimeUnit.SECONDS)) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> c.openTransfer(TransferId.random(),
                    TokenKey.random(), Instant.now().plusSeconds(60), 1 << 20).get(10, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof RelayRefusedException, e.toString());
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }

    /** {@code promtool check rules}: the rules file parses, and each expression and template with it. */
    @Test
    void promtoolAcceptsTheRules() throws Exception {
        ExternalTool.Result r = ExternalTool.require("promtool", "prometheus", transcript)
                .run(Duration.ofSeconds(60), "check", "rules", CONF.resolve("prometheus/fsp-alerts.yml").toString())
                .assertSuccess();
        assertTrue(r.stdout().contains("SUCCESS"), r.describe());
    }

    private static Scrape scrape(java.util.function.Supplier<String> output, String daemon) throws Exception {
        return Scrape.of(new InetSocketAddress("127.0.0.1", MetricsIT.printedMetricsPort(output, daemon)));
    }

    /** The names of the series in {@code scrape}: {@code x_total{code="A"}} is {@code x_total}. */
    private static Set<String> names(Scrape scrape) {
        Set<String> names = new TreeSet<>();
        for (String series : scrape.samples().keySet()) {
            names.add(series.replaceAll("\\{.*", ""));
        }
        return names;
    }
}

package io.fsp.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.program.ExitCode;
import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayConnectionConfig;
import io.fsp.relay.net.ConnectionPolicy;
import io.fsp.relaylink.wire.RelayRole;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.tls.SslContexts;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

@Timeout(60)
class RelayCommandTest {
    private static final String TRUST = RelayHarness.SERVER.fingerprint().toString();
    private static final Pattern LISTENING = Pattern.compile(
            "fsp-relay: listening on 127\\.0\\.0\\.1:(\\d+), certificate sha256 ([0-9A-F:]{95})\\n");
    private static final Pattern FINGERPRINT_LINE = Pattern.compile("[0-9A-F]{2}(:[0-9A-F]{2}){31}\\n");
    @TempDir
    Path dir;

    private record Run(int exit, String out, String err) {
    }

    private Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(new RelayCommand());
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int exit = cmd.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void startsPrintsAddressAndFingerprintAndServesATrustedServer() throws Exception {
        RelayCommand command = new RelayCommand();
        StringWriter out = new StringWriter();
        CommandLine cmd = new CommandLine(command);
        cmd.setOut(new PrintWriter(out, true));
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> cmd.execute(
                "--listen", "127.0.0.1:0", "--store", dir.resolve("store").toString(), "--state-dir",
                dir.resolve("state").toString(), "--trust-server", TRUST, "--quota", "64M", "--memory", "8M",
                "--ttl", "5m", "--server-quota", "32M", "--transfer-space", "4M", "--auth-timeout", "5s",
                "--max-unauthenticated-per-address", "8", "--idle-timeout", "2m", "--max-refusals", "5",
                "--max-retain", "14d"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (command.running == null || out.toString().isEmpty()) {
            assertTrue(System.nanoTime() < deadline, "relay did not start");
            Thread.sleep(20);
        }
        Matcher m = LISTENING.matcher(out.toString());
        assertTrue(m.matches(), out.toString());
        Fingerprint printed = Fingerprint.parse(m.group(2));
        RelayConfig config = command.running.config();
        assertEquals(32L << 20, config.store().serverQuotaBytes());
        assertEquals(4L << 20, config.store().transferSpaceBytes());
        assertEquals(Duration.ofDays(14), config.store().maxRetain());
        assertEquals(new ConnectionPolicy(1024, 8, Duration.ofSeconds(5), Duration.ofMinutes(2), 5, 64, 32, 64), config.connections());
        assertTrue(Files.exists(dir.resolve("state/relay.crt")));
        assertEquals(printed + "\n", run("fingerprint", "--state-dir", dir.resolve("state").toString()).out(),
                "fingerprint prints the certificate serving created");
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (RelayConnection server = RelayConnection.connect(
                new InetSocketAddress("127.0.0.1", Integer.parseInt(m.group(1))),
                SslContexts.client(PinnedTrustManager.of(Set.of(printed)), Optional.of(RelayHarness.SERVER)),
                group, RelayConnectionConfig.DEFAULT).get(10, TimeUnit.SECONDS)) {
            assertEquals(RelayRole.SERVER, server.role());
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            command.running.close();
        }
        assertEquals(0, exit.get(10, TimeUnit.SECONDS));
    }

    @Test
    void joinsTheMeridianOverlayAndAdvertisesItsBlockPortAndFingerprint() throws Exception {
        RelayCommand command = new RelayCommand();
        StringWriter out = new StringWriter();
        CommandLine cmd = new CommandLine(command);
        cmd.setOut(new PrintWriter(out, true));
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> cmd.execute(
                "--listen", "127.0.0.1:0", "--store", dir.resolve("store").toString(), "--state-dir",
                dir.resolve("state").toString(), "--trust-server", TRUST, "--meridian", "127.0.0.1:0"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (command.running == null || !out.toString().contains("meridian node")) {
            assertTrue(System.nanoTime() < deadline, "relay did not start: " + out);
            Thread.sleep(20);
        }
        try (io.fsp.meridian.net.MeridianService asker = io.fsp.meridian.net.MeridianService.client(
                new InetSocketAddress("127.0.0.1", 0), io.fsp.meridian.MeridianConfig.defaults())) {
            assertTrue(out.toString().contains("fsp-relay: meridian node on udp 127.0.0.1:"
                    + command.overlay.address().getPort() + "\n"), out.toString());
            io.fsp.meridian.wire.ServiceInfo info = asker.service(command.overlay.address()).get(10, TimeUnit.SECONDS)
                    .orElseThrow();
            assertEquals(command.running.address().getPort(), info.blockPort());
            // The defaults: all the quota for one server, an eighth of it per transfer, retention up to 30 days.
            assertEquals(ConnectionPolicy.DEFAULT, command.running.config().connections());
            assertEquals(2L << 30, command.running.config().store().serverQuotaBytes());
            assertEquals(256L << 20, command.running.config().store().transferSpaceBytes());
            assertEquals(Duration.ofDays(30), command.running.config().store().maxRetain());
            assertEquals(command.running.fingerprint(), info.fingerprint());
            // Off unless asked for: no metrics port, no caps.
            assertEquals(Optional.empty(), command.running.metricsAddress());
            assertEquals(io.fsp.relay.net.RateLimits.NONE, command.running.config().rates());
        } finally {
            command.running.close();
        }
        assertEquals(0, exit.get(10, TimeUnit.SECONDS));
    }

    @Test
    void meridianOnAnotherIpThanTheBlockServiceIsAUsageError() {
        Run r = run("--listen", "127.0.0.1:0", "--store", dir.resolve("s").toString(), "--state-dir",
                dir.resolve("st").toString(), "--trust-server", TRUST, "--meridian", "[::1]:0");
        assertEquals(ExitCode.USAGE, r.exit(), r.err());
        assertTrue(r.err().startsWith("fsp-relay: --meridian [::1]:0: IP differs from --listen 127.0.0.1:"),
                r.err());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "--meridian-bootstrap|127.0.0.1|--meridian-bootstrap: '127.0.0.1' (expected: HOST:PORT",
        "--meridian-bootstrap|127.0.0.1:0|--meridian-bootstrap: 127.0.0.1:0: port 0 (expected: 1..65535)",
        "--quota|2X|--quota: '2X' (expected: a size such as 1048576, 64K, 512M, 2G)",
        "--memory|-5|--memory: '-5' (expected: a size",
        "--ttl|forever|--ttl: 'forever' (expected: a duration such as",
        "--listen|localhost|--listen: 'localhost' (expected: HOST:PORT",
        "--listen|127.0.0.1:70000|--listen: '127.0.0.1:70000': port '70000' (expected: 0..65535)",
        "--trust-server|ABCD|--trust-server: fingerprint 'ABCD': 4 hex digits",
        "--max-block|2G|--max-block: 2G (expected: 1..1G)",
        "--max-block|0|--max-block: 0 (expected: 1..1G)",
        "--rate-limit|fast|--rate-limit: 'fast' (expected: a size such as",
        "--rate-limit-per-transfer|-1M|--rate-limit-per-transfer: '-1M' (expected: a size such as",
        "--metrics|9464|--metrics: '9464' (expected: HOST:PORT",
        "--socket-buffer|100|--socket-buffer: 100 (expected: 0 for the kernel's autotuning, or 4096..1073741824 bytes)",
        "--socket-buffer|2G|--socket-buffer: 2147483648 (expected: 0 for the kernel's autotuning",
        "--socket-buffer|big|--socket-buffer: 'big' (expected: a size",
        "--server-quota|4G|--server-quota 4294967296: (expected: 1..2147483648, at most --quota)",
        "--transfer-space|0|--transfer-space 0: (expected: 1..2147483648, at most --server-quota)",
        "--auth-timeout|0s|--auth-timeout PT0S: (expected: > 0)",
        "--max-connections|many|--max-connections: 'many' (expected: an integer)",
        "--max-unauthenticated-per-address|0|--max-unauthenticated-per-address 0: (expected: >= 1)",
        "--max-refusals|0|--max-refusals 0: (expected: >= 1)",
        "--max-retain|0s|--max-retain: PT0S (expected: > 0)",
        "--max-retain|a week|--max-retain: 'a week' (expected: a duration",
    })
    void badOptionValuesAreUsageErrorsThatNameTheOption(String option, String value, String message) {
        java.util.Map<String, String> options = new java.util.LinkedHashMap<>();
        options.put("--listen", "127.0.0.1:0");
        options.put("--store", dir.resolve("s").toString());
        options.put("--state-dir", dir.resolve("st").toString());
        options.put("--trust-server", TRUST);
        options.put(option, value);
        String[] args = options.entrySet().stream().flatMap(e -> java.util.stream.Stream.of(e.getKey(), e.getValue()))
                .toArray(String[]::new);
        Run r = run(args);
        assertEquals(ExitCode.USAGE, r.exit(), r.err());
        assertTrue(r.err().startsWith("fsp-relay: " + message), r.err());
    }

    @Test
    void fingerprintCreatesTheCertificateOnceAndServingUsesIt() throws Exception {
        Path state = dir.resolve("state");
        Run first = run("fingerprint", "--state-dir", state.toString());
        assertEquals(0, first.exit(), first.err());
        assertTrue(FINGERPRINT_LINE.matcher(first.out()).matches(), first.out());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve("relay.key"))));
        assertEquals(first.out(), run("fingerprint", "--state-dir", state.toString()).out(), "the same certificate");

        RelayCommand command = new RelayCommand();
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> new CommandLine(command).execute(
                "--listen", "127.0.0.1:0", "--store", dir.resolve("store").toString(), "--state-dir", state.toString(),
                "--trust-server", TRUST));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (command.running == null) {
            assertTrue(System.nanoTime() < deadline && !exit.isDone(), "relay did not start");
            Thread.sleep(20);
        }
        try {
            assertEquals(first.out(), command.running.fingerprint() + "\n");
        } finally {
            command.running.close();
        }
        assertEquals(0, exit.get(10, TimeUnit.SECONDS));
    }

    @Test
    void fingerprintRefusesAPrivateKeyOthersCanReadLikeServing() throws Exception {
        Path state = dir.resolve("state");
        assertEquals(0, run("fingerprint", "--state-dir", state.toString()).exit());
        Files.setPosixFilePermissions(state.resolve("relay.key"), PosixFilePermissions.fromString("rw-r--r--"));
        Run r = run("fingerprint", "--state-dir", state.toString());
        assertEquals(1, r.exit());
        assertEquals("", r.out());
        assertTrue(r.err().startsWith("fsp-relay: cannot load or create the relay certificate: ")
                && r.err().contains("chmod 600"), r.err());
        Run serving = run("--listen", "127.0.0.1:0", "--store", dir.resolve("store").toString(), "--state-dir",
                state.toString(), "--trust-server", TRUST);
        assertEquals(1, serving.exit());
        assertEquals(r.err(), serving.err(), "the same refusal as serving");
    }

    @Test
    void fingerprintTakesNoServingOptions() {
        Run r = run("fingerprint", "--state-dir", dir.toString(), "--listen", "127.0.0.1:0");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("--listen"), r.err());
    }

    @Test
    void missingListenAndStoreAreAUsageErrorButNotTrust() {
        // A relay may start trusting no server yet: fsp-relay join adds one while it runs.
        Run none = run("--state-dir", dir.toString());
        assertEquals(2, none.exit());
        assertTrue(none.err().startsWith("fsp-relay: missing required options: --listen=HOST:PORT, --store=DIR (options,"),
                none.err());
    }

    @Test
    void addressInUseFailsToStartWithExitOne() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getByName("127.0.0.1"))) {
            Run r = run("--listen", "127.0.0.1:" + taken.getLocalPort(), "--store", dir.resolve("s").toString(),
                    "--state-dir", dir.resolve("st").toString(), "--trust-server", TRUST);
            assertEquals(1, r.exit(), r.err());
            assertTrue(r.err().startsWith("fsp-relay: cannot start on 127.0.0.1:" + taken.getLocalPort()), r.err());
        }
    }

    /** Starts the relay with {@code args} in the background; returns it once it listens. */
    private RelayCommand serve(String... args) throws Exception {
        RelayCommand command = new RelayCommand();
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(command);
        cmd.setErr(new PrintWriter(err, true));
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> cmd.execute(args));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (command.running == null) {
            assertTrue(System.nanoTime() < deadline && !exit.isDone(), "relay did not start: " + err);
            Thread.sleep(20);
        }
        return command;
    }

    @Test
    void configFileSetsEveryKeyRelativeToItselfAndOptionsOverrideIt() throws Exception {
        Path conf = Files.writeString(dir.resolve("relay.conf"), """
                # a relay for one server
                listen = 127.0.0.1:0
                store = blocks
                state-dir = state
                trust-server = %s
                quota = 64M
                memory = 8M
                server-quota = 32M
                ttl = 5m
                max-retain = 14d
                max-refusals = 5
                verify-blocks = off
                """.formatted(TRUST));
        RelayCommand command = serve("--config", conf.toString(), "--quota", "128M", "--verify-blocks",
                "--idle-timeout", "2m");
        try {
            RelayConfig config = command.running.config();
            assertEquals(dir.resolve("blocks").toAbsolutePath(), config.store().directory(), "relative to the file");
            assertTrue(Files.exists(dir.resolve("state/relay.crt")), "state-dir relative to the file");
            assertEquals(128L << 20, config.store().quotaBytes(), "the option overrides the file");
            assertEquals(8L << 20, config.store().memoryBytes());
            assertEquals(32L << 20, config.store().serverQuotaBytes());
            assertEquals(32L << 20, config.store().transferSpaceBytes(), "default: at least max-block");
            assertEquals(Duration.ofMinutes(5), config.store().ttl());
            assertEquals(Duration.ofDays(14), config.store().maxRetain());
            assertEquals(new ConnectionPolicy(1024, 16, Duration.ofSeconds(10), Duration.ofMinutes(2), 5, 64, 32, 64),
                    config.connections());
            assertTrue(config.verifyBlocks(), "--verify-blocks overrides verify-blocks = off");
            assertEquals(Set.of(RelayHarness.SERVER.fingerprint()), config.trustedServers());
        } finally {
            command.running.close();
        }
        assertEquals(command.running.fingerprint() + "\n", run("fingerprint", "--config", conf.toString()).out(),
                "fingerprint finds the certificate through the file's state-dir");
    }

    @Test
    void anOptionReplacesAllOfTheFilesLinesOfItsKey() throws Exception {
        String other = "AB:" + "00:".repeat(30) + "CD";
        Path conf = Files.writeString(dir.resolve("relay.conf"), "trust-server = " + other + "\ntrust-server = "
                + other.replace("AB", "EF") + "\nlisten = 127.0.0.1:0\nstore = s\nstate-dir = st\n");
        RelayCommand command = serve("--config", conf.toString(), "--trust-server", TRUST, "--no-verify-blocks");
        try {
            assertEquals(Set.of(RelayHarness.SERVER.fingerprint()), command.running.config().trustedServers());
            assertTrue(!command.running.config().verifyBlocks());
        } finally {
            command.running.close();
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "quotas = 2G|3: unknown key 'quotas' (expected one of: listen, store, trust-server, state-dir, quota,",
        "ttl = forever|3: ttl: 'forever' (expected: a duration such as",
        "max-block = 2G|3: max-block: 2G (expected: 1..1G)",
        "max-refusals = 0|3: max-refusals 0: (expected: >= 1)",
        "trust-server = ABCD|3: trust-server: fingerprint 'ABCD': 4 hex digits",
        "quota 2G|3: 'quota 2G' (expected: key = value)",
    })
    void aBadLineInTheConfigFileIsAUsageErrorNamingFileLineAndKey(String line, String message) throws Exception {
        Path conf = Files.writeString(dir.resolve("relay.conf"), "# relay\nlisten = 127.0.0.1:0\n" + line + "\n");
        Run r = run("--config", conf.toString(), "--store", dir.resolve("s").toString(), "--state-dir",
                dir.resolve("st").toString(), "--trust-server", TRUST);
        assertEquals(ExitCode.USAGE, r.exit(), r.err());
        assertTrue(r.err().startsWith("fsp-relay: " + conf + ":" + message), r.err());
        assertEquals("", r.out());
    }

    @Test
    void aMissingConfigFileIsAUsageError() {
        Run r = run("--config", dir.resolve("nowhere.conf").toString());
        assertEquals(ExitCode.USAGE, r.exit(), r.err());
        assertTrue(r.err().startsWith("fsp-relay: " + dir.resolve("nowhere.conf") + ": cannot read"), r.err());
    }

    @Test
    void requiredKeysMayComeFromTheFile() throws Exception {
        Path conf = Files.writeString(dir.resolve("relay.conf"), "listen = 127.0.0.1:0\n");
        Run r = run("--config", conf.toString(), "--state-dir", dir.resolve("st").toString());
        assertEquals(ExitCode.USAGE, r.exit(), r.err());
        assertTrue(r.err().startsWith("fsp-relay: missing required option: --store=DIR (options, or"
                + " keys of the --config file"), r.err());
    }

    /** One name for each setting: every option but --config is a key of RelaySettings, and every key an option. */
    @Test
    void everyOptionIsAConfigurationKeyAndEveryKeyAnOption() {
        java.util.List<String> options = new CommandLine(new RelayCommand()).getCommandSpec().options().stream()
                .filter(o -> !o.usageHelp() && !o.versionHelp() && !o.longestName().equals("--config"))
                .map(o -> o.longestName().substring(2)).sorted().toList();
        assertEquals(io.fsp.config.ConfigLoader.keys(RelaySettings.class).stream().sorted().toList(), options);
    }
}

package io.fsp.relay;

import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.net.MeridianService;
import io.fsp.net.SocketBuffers;
import io.fsp.relay.fault.FaultPlan;
import io.fsp.relay.net.ConnectionPolicy;
import io.fsp.relay.store.StoreConfig;
import io.fsp.relay.wire.RelayLimits;
import io.fsp.tls.Certificates;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.KeyMaterial;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fsp-relay}: the relay daemon. {@code --listen}, {@code --store} and {@code --trust-server} are required
 * for serving and checked in {@link #call()}, since picocli would demand them of the subcommand too.
 */
@Command(name = "fsp-relay", mixinStandardHelpOptions = true, version = "fsp-relay 0.1.0",
        customSynopsis = {"fsp-relay --listen=HOST:PORT --store=DIR --trust-server=FINGERPRINT... [OPTIONS]",
                "fsp-relay fingerprint [--state-dir=DIR]"},
        description = {"Relay daemon: holds encrypted blocks of striped transfers for the servers it trusts,"
                + " and hands them to clients that present a capability token. A transfer a server opens as"
                + " retained is kept on disk until it expires (at most --max-retain), across restarts.",
                "Prints 'fsp-relay: listening on HOST:PORT, certificate sha256 FINGERPRINT' once ready."},
        exitCodeOnExecutionException = 4, exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:stopped normally", "1:could not start (address in use, unreadable state)",
                "2:usage error", "4:internal error"},
        subcommands = RelayCommand.FingerprintCommand.class)
public final class RelayCommand implements Callable<Integer> {
    static final int EXIT_FAILURE = 1;
    static final int EXIT_USAGE = 2;

    @Spec
    CommandSpec spec;

    @Option(names = "--listen", paramLabel = "HOST:PORT",
            description = "Address to listen on; port 0 picks a free port (printed at start).")
    String listen;

    @Option(names = "--store", paramLabel = "DIR",
            description = "Directory for blocks spilled from memory and for retained transfers (encrypted block"
                    + " bytes, and each retained transfer's metadata); at start the retained transfers found there"
                    + " are restored, everything else the relay left there is deleted.")
    Path storeDir;

    @Option(names = "--quota", paramLabel = "SIZE", defaultValue = "2G",
            description = "Most block bytes held at once, memory and disk together (default: ${DEFAULT-VALUE}).")
    String quota;

    @Option(names = "--socket-buffer", paramLabel = "SIZE", defaultValue = "0",
            description = "Fix both socket buffers of every connection at SIZE, e.g. 8M, turning off the kernel's"
                    + " autotuning (capped by net.core.rmem_max / wmem_max; default: ${DEFAULT-VALUE}, autotuning).")
    String socketBuffer;

    @Option(names = "--server-quota", paramLabel = "SIZE",
            description = "Most block bytes the transfers of one trusted server may reserve together, so that one"
                    + " server cannot crowd out the others (default: --quota).")
    String serverQuota;

    @Option(names = "--transfer-space", paramLabel = "SIZE",
            description = "Most block bytes reserved for one transfer, and held for it at once; a transfer that"
                    + " declares more streams through this much as its client confirms blocks (default: 1/8 of"
                    + " --server-quota, at least --max-block).")
    String transferSpace;

    @Option(names = "--memory", paramLabel = "SIZE", defaultValue = "256M",
            description = "Most block bytes held in memory; the rest spill to --store (default: ${DEFAULT-VALUE}).")
    String memory;

    @Option(names = "--trust-server", paramLabel = "FINGERPRINT",
            description = "SHA-256 certificate fingerprint of a server allowed to push blocks, as the server"
                    + " prints it at start or with 'fsp-server fingerprint' (repeatable).")
    List<String> trustServers = new ArrayList<>();

    @Option(names = "--ttl", paramLabel = "DURATION", defaultValue = "1h",
            description = "Drop a transfer nobody touched for this long; retained transfers are kept until their"
                    + " expiry (default: ${DEFAULT-VALUE}).")
    String ttl;

    @Option(names = "--max-retain", paramLabel = "DURATION", defaultValue = "30d",
            description = "Longest a server may have a transfer retained: kept on disk until its expiry, across"
                    + " restarts, for a collector that comes later (default: ${DEFAULT-VALUE}).")
    String maxRetain;

    @Option(names = "--state-dir", paramLabel = "DIR",
            description = "Where the relay keeps its certificate and key (default: ~/.fsp/relay).")
    Path stateDir;

    @Option(names = "--max-block", paramLabel = "SIZE", defaultValue = "32M",
            description = "Largest block accepted (default: ${DEFAULT-VALUE}).")
    String maxBlock;

    @Option(names = "--max-connections", paramLabel = "N", defaultValue = "1024",
            description = "Connections served at once (default: ${DEFAULT-VALUE}).")
    int maxConnections;

    @Option(names = "--max-unauthenticated-per-address", paramLabel = "N", defaultValue = "16",
            description = "Connections from one IP address that have not yet authenticated (a trusted server's"
                    + " certificate, or a client's accepted token); more are closed at once (default:"
                    + " ${DEFAULT-VALUE}).")
    int maxUnauthenticatedPerAddress;

    @Option(names = "--auth-timeout", paramLabel = "DURATION", defaultValue = "10s",
            description = "Close a connection that has not authenticated this long after it was accepted"
                    + " (default: ${DEFAULT-VALUE}).")
    String authTimeout;

    @Option(names = "--idle-timeout", paramLabel = "DURATION", defaultValue = "5m",
            description = "Close an authenticated connection silent for this long (default: ${DEFAULT-VALUE}).")
    String idleTimeout;

    @Option(names = "--max-refusals", paramLabel = "N", defaultValue = "3",
            description = "Close a connection without a trusted server certificate once this many of its requests"
                    + " were refused (default: ${DEFAULT-VALUE}).")
    int maxRefusals;

    @Option(names = "--verify-blocks", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Refuse pushed blocks whose wire checksum or header is wrong (default: on;"
                    + " --no-verify-blocks stores any bytes).")
    boolean verifyBlocks;

    @Option(names = "--accept-clear-blocks",
            description = "Also store blocks that are not encrypted (default: refuse them, so the relay never"
                    + " holds plaintext).")
    boolean acceptClearBlocks;

    @Option(names = "--fault", paramLabel = "SPEC", hidden = true,
            description = "Misbehave towards clients, for tests: flip-bit:SEQ, tamper:SEQ, close-after:BYTES, stall,"
                    + " throttle:BYTES_PER_SECOND, duplicate:SEQ, foreign-block:SEQ (repeatable).")
    List<String> faults = new ArrayList<>();

    @Option(names = "--meridian", paramLabel = "HOST:PORT",
            description = "Join the Meridian overlay on this UDP address, so servers can find the relay by RTT"
                    + " (default with --meridian-bootstrap: the --listen address and port). Same IP as --listen;"
                    + " port 0 picks a free one.")
    String meridian;

    @Option(names = "--meridian-bootstrap", paramLabel = "HOST:PORT",
            description = "Meridian node to join the overlay through (repeatable); implies --meridian.")
    List<String> meridianBootstrap = new ArrayList<>();

    /** The relay's Meridian node, once started; null without --meridian. */
    volatile MeridianService overlay;

    /** The relay this command runs, once started (tests stop it through this). */
    volatile FspRelay running;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<String> missing = new ArrayList<>();
        if (listen == null) {
            missing.add("--listen=HOST:PORT");
        }
        if (storeDir == null) {
            missing.add("--store=DIR");
        }
        if (trustServers.isEmpty()) {
            missing.add("--trust-server=FINGERPRINT");
        }
        if (!missing.isEmpty()) {
            err.println("fsp-relay: missing required option" + (missing.size() > 1 ? "s: " : ": ")
                    + String.join(", ", missing) + " (or: fsp-relay fingerprint [--state-dir=DIR])");
            err.flush();
            return EXIT_USAGE;
        }
        RelayConfig config;
        try {
            config = config();
        } catch (IllegalArgumentException e) {
            err.println("fsp-relay: " + e.getMessage());
            err.flush();
            return EXIT_USAGE;
        } catch (IOException e) {
            err.println(certificateProblem(e));
            err.flush();
            return EXIT_FAILURE;
        }
        FspRelay relay;
        try {
            relay = FspRelay.start(config);
        } catch (IOException | RuntimeException e) {
            err.println("fsp-relay: cannot start on " + listen + ": " + e.getMessage());
            err.flush();
            return EXIT_FAILURE;
        }
        if (meridian != null || !meridianBootstrap.isEmpty()) {
            try {
                overlay = joinOverlay(relay);
            } catch (IllegalArgumentException e) {
                relay.close();
                err.println("fsp-relay: " + e.getMessage());
                err.flush();
                return EXIT_USAGE;
            } catch (RuntimeException e) {
                relay.close();
                err.println("fsp-relay: cannot join the Meridian overlay on " + meridian + ": " + e.getMessage());
                err.flush();
                return EXIT_FAILURE;
            }
        }
        running = relay;
        MeridianService node = overlay;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (node != null) {
                node.close();
            }
            relay.close();
        }, "fsp-relay-shutdown"));
        out.println("fsp-relay: listening on " + CliValues.format(relay.address()) + ", certificate sha256 "
                + relay.fingerprint());
        if (node != null) {
            out.println("fsp-relay: meridian node on udp " + CliValues.format(node.address()));
        }
        out.flush();
        relay.awaitClose();
        if (node != null) {
            node.close();
        }
        return 0;
    }

    private MeridianService joinOverlay(FspRelay relay) throws InterruptedException {
        InetSocketAddress bind = meridian != null ? value("--meridian", meridian, CliValues::hostPort)
                : new InetSocketAddress(relay.address().getAddress(), relay.address().getPort());
        List<InetSocketAddress> bootstrap = new ArrayList<>();
        for (String b : meridianBootstrap) {
            InetSocketAddress peer = value("--meridian-bootstrap", b, CliValues::hostPort);
            if (peer.getPort() == 0) {
                throw new IllegalArgumentException("--meridian-bootstrap " + b + ": port 0 (expected: 1..65535)");
            }
            bootstrap.add(peer);
        }
        return RelayOverlay.join(relay, bind, bootstrap, MeridianConfig.defaults());
    }

    private RelayConfig config() throws IOException {
        InetSocketAddress address = value("--listen", listen, CliValues::hostPort);
        long quotaBytes = value("--quota", quota, CliValues::size);
        long memoryBytes = value("--memory", memory, CliValues::size);
        long serverQuotaBytes = serverQuota == null ? quotaBytes : value("--server-quota", serverQuota, CliValues::size);

        long maxDirect = PlatformDependent.maxDirectMemory();
        if (Math.min(memoryBytes, quotaBytes) > maxDirect * 3 / 4) {
            throw new IllegalArgumentException("--memory " + memory + ": more than 3/4 of the JVM's direct memory ("
                    + maxDirect + " bytes); lower --memory or raise -XX:MaxDirectMemorySize in FSP_JAVA_OPTS");
        }
        long maxBlockBytes = value("--max-block", maxBlock, CliValues::size);
        if (maxBlockBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("--max-block " + maxBlock + ": (expected: <= 1G)");
        }
        RelayLimits limits;
        try {
            limits = new RelayLimits((int) maxBlockBytes);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--max-block " + maxBlock + ": " + e.getMessage());
        }
        long transferSpaceBytes = transferSpace == null ? StoreConfig.defaultTransferSpace(serverQuotaBytes, maxBlockBytes)
                : value("--transfer-space", transferSpace, CliValues::size);
        Duration ttlValue = value("--ttl", ttl, CliValues::duration);
        Set<Fingerprint> trusted = new HashSet<>();
        for (String f : trustServers) {
            trusted.add(value("--trust-server", f, Fingerprint::parse));
        }
        FaultPlan plan = FaultPlan.parse(faults);
        KeyMaterial identity = identity(stateDir);
        ConnectionPolicy connections = new ConnectionPolicy(maxConnections, maxUnauthenticatedPerAddress,
                value("--auth-timeout", authTimeout, CliValues::duration),
                value("--idle-timeout", idleTimeout, CliValues::duration), maxRefusals);
        return new RelayConfig(address, new StoreConfig(storeDir, quotaBytes, memoryBytes, ttlValue, serverQuotaBytes,
                transferSpaceBytes, value("--max-retain", maxRetain, CliValues::duration)), identity, trusted, limits,
                connections, verifyBlocks, acceptClearBlocks, plan,
                Clock.systemUTC(),
                SocketBuffers.check("--socket-buffer", value("--socket-buffer", socketBuffer, CliValues::size)));
    }

    /**
     * The relay's certificate and key from {@code stateDir} (null: {@code ~/.fsp/relay}), generated and written
     * there on first use; serving and {@code fsp-relay fingerprint} both take it from here.
     */
    static KeyMaterial identity(Path stateDir) throws IOException {
        Path state = stateDir != null ? stateDir : Path.of(System.getProperty("user.home"), ".fsp", "relay");
        return Certificates.loadOrCreate(state.resolve("relay.crt"), state.resolve("relay.key"), "fsp-relay");
    }

    private static String certificateProblem(IOException e) {
        return "fsp-relay: cannot load or create the relay certificate: " + e.getMessage() + " (check --state-dir)";
    }

    /**
     * {@code fsp-relay fingerprint}: prints the fingerprint of the relay's certificate, creating it as serving
     * would, so that a server can be given {@code --relay HOST:PORT=FINGERPRINT} before the relay first starts.
     */
    @Command(name = "fingerprint", mixinStandardHelpOptions = true,
            description = {"Prints the SHA-256 fingerprint of the relay's certificate (creating the certificate"
                    + " and key in --state-dir if they do not exist yet) and exits, without serving.",
                    "Give it to a server as --relay HOST:PORT=FINGERPRINT."})
    static final class FingerprintCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--state-dir", paramLabel = "DIR",
                description = "Where the relay keeps its certificate and key (default: ~/.fsp/relay).")
        Path stateDir;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            KeyMaterial identity;
            try {
                identity = identity(stateDir);
            } catch (IOException e) {
                err.println(certificateProblem(e));
                err.flush();
                return EXIT_FAILURE;
            }
            out.println(identity.fingerprint());
            out.flush();
            err.println("fsp-relay: give it to the server as --relay HOST:PORT=" + identity.fingerprint());
            err.flush();
            return 0;
        }
    }

    private static <T> T value(String option, String text, java.util.function.Function<String, T> parser) {
        try {
            return parser.apply(text);
        } catch (IllegalArgumentException e) {
            String m = e.getMessage();
            throw new IllegalArgumentException(m.startsWith(option) ? m : option + " " + m);
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new RelayCommand()).execute(args));
    }
}

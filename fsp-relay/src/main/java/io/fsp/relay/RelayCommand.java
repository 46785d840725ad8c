package io.fsp.relay;

import io.fsp.config.ConfigException;
import io.fsp.config.ConfigSource;
import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.net.MeridianService;
import io.fsp.net.HostPort;
import io.fsp.program.ExitCode;
import io.fsp.tls.Certificates;
import io.fsp.tls.KeyMaterial;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fsp-relay}: the relay daemon. Settings come from the defaults, then {@code --config FILE}, then the options
 * given here: every option but {@code --config} is the configuration key of its name ({@code --max-retain} is
 * {@code max-retain}, a component of {@link RelaySettings}), which {@link ConfigSource#options} reads from what
 * picocli matched. The option fields below only declare the syntax and the help; an option is added by declaring it here
 * and adding its component to {@link RelaySettings} (and its line to {@code conf/relay.conf.example}).
 * {@code listen}, {@code store} and {@code trust-server} are required for serving and checked in {@link #call()},
 * since picocli would demand them of the subcommand too and they may come from the file.
 */
@Command(name = "fsp-relay", mixinStandardHelpOptions = true, version = "fsp-relay 0.1.0",
        customSynopsis = {"fsp-relay --listen=HOST:PORT --store=DIR --trust-server=FINGERPRINT... [OPTIONS]",
                "fsp-relay --config=FILE [OPTIONS]",
                "fsp-relay fingerprint [--config=FILE] [--state-dir=DIR]"},
        description = {"Relay daemon: holds encrypted blocks of striped transfers for the servers it trusts,"
                + " and hands them to clients that present a capability token. A transfer a server opens as"
                + " retained is kept on disk until it expires (at most --max-retain), across restarts.",
                "Every option is also a key of the --config file (see conf/relay.conf.example); options given"
                        + " here override the file.",
                "Prints 'fsp-relay: listening on HOST:PORT, certificate sha256 FINGERPRINT' once ready."},
        exitCodeOnExecutionException = ExitCode.INTERNAL, exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:stopped normally", "1:could not start (address in use, unreadable state)",
                "2:usage error", "4:internal error"},
        subcommands = RelayCommand.FingerprintCommand.class)
public final class RelayCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE",
            description = "Configuration file: one 'key = value' per line, each key an option of this command"
                    + " without its '--' (see conf/relay.conf.example); options given here override it.")
    Path config;

    @Option(names = "--listen", paramLabel = "HOST:PORT",
            description = "Address to listen on; port 0 picks a free port (printed at start).")
    String listen;

    @Option(names = "--store", paramLabel = "DIR",
            description = "Directory for blocks spilled from memory and for retained transfers (encrypted block"
                    + " bytes, and each retained transfer's metadata); at start the retained transfers found there"
                    + " are restored, everything else the relay left there is deleted.")
    String store;

    @Option(names = "--trust-server", paramLabel = "FINGERPRINT",
            description = "SHA-256 certificate fingerprint of a server allowed to push blocks, as the server"
                    + " prints it at start or with 'fsp-server fingerprint' (repeatable).")
    List<String> trustServer;

    @Option(names = "--state-dir", paramLabel = "DIR",
            description = "Where the relay keeps its certificate and key (default: ~/.fsp/relay).")
    String stateDir;

    @Option(names = "--quota", paramLabel = "SIZE",
            description = "Most block bytes held at once, memory and disk together (default: 2G).")
    String quota;

    @Option(names = "--memory", paramLabel = "SIZE",
            description = "Most block bytes held in memory; the rest spill to --store (default: 256M).")
    String memory;

    @Option(names = "--server-quota", paramLabel = "SIZE",
            description = "Most block bytes the transfers of one trusted server may reserve together, so that one"
                    + " server cannot crowd out the others (default: --quota).")
    String serverQuota;

    @Option(names = "--transfer-space", paramLabel = "SIZE",
            description = "Most block bytes reserved for one transfer, and held for it at once; a transfer that"
                    + " declares more streams through this much as its client confirms blocks (default: 1/8 of"
                    + " --server-quota, at least --max-block).")
    String transferSpace;

    @Option(names = "--server-retained-space", paramLabel = "SIZE",
            description = "Most block bytes the retained transfers (evacuations) of one trusted server may reserve"
                    + " together, within --server-quota (default: half of --server-quota).")
    String serverRetainedSpace;

    @Option(names = "--ttl", paramLabel = "DURATION",
            description = "Drop a transfer nobody touched for this long; retained transfers are kept until their"
                    + " expiry (default: 1h).")
    String ttl;

    @Option(names = "--max-retain", paramLabel = "DURATION",
            description = "Longest a server may have a transfer retained: kept on disk until its expiry, across"
                    + " restarts, for a collector that comes later (default: 30d).")
    String maxRetain;

    @Option(names = "--max-block", paramLabel = "SIZE", description = "Largest block accepted (default: 32M).")
    String maxBlock;

    @Option(names = "--socket-buffer", paramLabel = "SIZE",
            description = "Fix both socket buffers of every connection at SIZE, e.g. 8M, turning off the kernel's"
                    + " autotuning (capped by net.core.rmem_max / wmem_max; default: 0, autotuning).")
    String socketBuffer;

    @Option(names = "--max-connections", paramLabel = "N", description = "Connections served at once (default: 1024).")
    String maxConnections;

    @Option(names = "--max-unauthenticated-per-address", paramLabel = "N",
            description = "Connections from one IP address (an IPv6 address: its /64) that have not yet authenticated"
                    + " (a trusted server's certificate, or a client's accepted token); more are closed at once"
                    + " (default: 16).")
    String maxUnauthenticatedPerAddress;

    @Option(names = "--max-client-connections-per-address", paramLabel = "N",
            description = "Client connections holding an accepted token from one IP address (IPv6: one /64); one"
                    + " more is refused and closed (default: 64).")
    String maxClientConnectionsPerAddress;

    @Option(names = "--max-connections-per-transfer", paramLabel = "N",
            description = "Client connections holding a token for one transfer; one more is refused and closed"
                    + " (default: 32).")
    String maxConnectionsPerTransfer;

    @Option(names = "--server-connections", paramLabel = "N",
            description = "Of --max-connections, the ones kept for trusted servers: client connections holding"
                    + " tokens never take them (default: a sixteenth of --max-connections).")
    String serverConnections;

    @Option(names = "--auth-timeout", paramLabel = "DURATION",
            description = "Close a connection that has not authenticated this long after it was accepted"
                    + " (default: 10s).")
    String authTimeout;

    @Option(names = "--idle-timeout", paramLabel = "DURATION",
            description = "Close an authenticated connection silent for this long (default: 5m).")
    String idleTimeout;

    @Option(names = "--max-refusals", paramLabel = "N",
            description = "Close a connection without a trusted server certificate once this many of its requests"
                    + " were refused (default: 3).")
    String maxRefusals;

    @Option(names = "--verify-blocks", negatable = true, fallbackValue = "true",
            description = "Refuse pushed blocks whose wire checksum or header is wrong (default: on;"
                    + " --no-verify-blocks stores any bytes).")
    Boolean verifyBlocks;

    @Option(names = "--accept-clear-blocks",
            description = "Also store blocks that are not encrypted (default: refuse them, so the relay never"
                    + " holds plaintext).")
    Boolean acceptClearBlocks;

    @Option(names = "--metrics", paramLabel = "HOST:PORT",
            description = "Serve Prometheus metrics at http://HOST:PORT/metrics (plain HTTP, no authentication: bind"
                    + " it where only the scraper reaches, e.g. 127.0.0.1:9464; default: none).")
    String metrics;

    @Option(names = "--rate-limit", paramLabel = "RATE",
            description = "Most bytes per second the relay sends in all (to clients: Netty's global traffic shaping"
                    + " of every connection), and most block bytes per second it receives in all (from servers), e.g."
                    + " 50M (default: 0, none).")
    String rateLimit;

    @Option(names = "--rate-limit-per-transfer", paramLabel = "RATE",
            description = "Most block bytes per second one transfer's GETs get, over all its client connections"
                    + " together, and most its PUTs bring, e.g. 10M (default: 0, none).")
    String rateLimitPerTransfer;

    @Option(names = "--meridian", paramLabel = "HOST:PORT",
            description = "Join the Meridian overlay on this UDP address, so servers can find the relay by RTT"
                    + " (default with --meridian-bootstrap: the --listen address and port). Same IP as --listen;"
                    + " port 0 picks a free one.")
    String meridian;

    @Option(names = "--meridian-bootstrap", paramLabel = "HOST:PORT",
            description = "Meridian node to join the overlay through (repeatable); implies --meridian.")
    List<String> meridianBootstrap;

    private final ConnectionHandlers handlers;

    public RelayCommand() {
        this(ConnectionHandlers.NONE);
    }

    /**
     * The relay program whose relay adds {@code handlers} to each connection ({@link RelayConfig#handlers()}), for
     * a program that embeds it.
     */
    public RelayCommand(ConnectionHandlers handlers) {
        this.handlers = handlers;
    }

    /** The relay's Meridian node, once started; null without --meridian. */
    volatile MeridianService overlay;

    /** The relay this command runs, once started (tests stop it through this). */
    volatile FspRelay running;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        RelaySettings settings;
        try {
            settings = RelaySettings.load(Optional.ofNullable(config),
                    ConfigSource.options(spec.commandLine().getParseResult(), RelaySettings.class));
        } catch (ConfigException e) {
            return usage(err, e.getMessage());
        }
        List<String> missing = settings.missingForServing();
        if (!missing.isEmpty()) {
            return usage(err, "missing required option" + (missing.size() > 1 ? "s: " : ": ") + String.join(", ", missing)
                    + " (options, or keys of the --config file; or: fsp-relay fingerprint [--state-dir=DIR])");
        }
        RelayConfig relayConfig;
        try {
            relayConfig = settings.toConfig(identity(settings)).withHandlers(handlers);
        } catch (IllegalArgumentException e) {
            return usage(err, e.getMessage());
        } catch (IOException e) {
            err.println(certificateProblem(e));
            err.flush();
            return ExitCode.FAILURE;
        }
        FspRelay relay;
        try {
            relay = FspRelay.start(relayConfig);
        } catch (IOException | RuntimeException e) {
            err.println("fsp-relay: cannot start on " + settings.listen().orElseThrow() + ": " + e.getMessage());
            err.flush();
            return ExitCode.FAILURE;
        }
        if (settings.meridian().isPresent() || !settings.meridianBootstrap().isEmpty()) {
            try {
                overlay = joinOverlay(relay, settings);
            } catch (IllegalArgumentException e) {
                relay.close();
                return usage(err, e.getMessage());
            } catch (RuntimeException e) {
                relay.close();
                err.println("fsp-relay: cannot join the Meridian overlay on " + settings.meridian().orElse(null) + ": "
                        + e.getMessage());
                err.flush();
                return ExitCode.FAILURE;
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
        out.println("fsp-relay: listening on " + HostPort.format(relay.address()) + ", certificate sha256 "
                + relay.fingerprint());
        if (node != null) {
            out.println("fsp-relay: meridian node on udp " + HostPort.format(node.address()));
        }
        relay.metricsAddress().ifPresent(a -> out.println("fsp-relay: metrics on http://" + HostPort.format(a)
                + "/metrics"));
        out.flush();
        relay.awaitClose();
        if (node != null) {
            node.close();
        }
        return ExitCode.OK;
    }

    private static int usage(PrintWriter err, String message) {
        err.println("fsp-relay: " + message);
        err.flush();
        return ExitCode.USAGE;
    }

    private static MeridianService joinOverlay(FspRelay relay, RelaySettings settings) throws InterruptedException {
        InetSocketAddress bind = settings.meridian().map(HostPort::toSocketAddress)
                .orElseGet(() -> new InetSocketAddress(relay.address().getAddress(), relay.address().getPort()));
        List<InetSocketAddress> bootstrap = settings.meridianBootstrap().stream().map(HostPort::toSocketAddress).toList();
        return RelayOverlay.join(relay, bind, bootstrap, MeridianConfig.defaults());
    }

    /**
     * The relay's certificate and key from its state directory ({@code ~/.fsp/relay} unless set), generated and
     * written there on first use; serving and {@code fsp-relay fingerprint} both take it from here.
     */
    static KeyMaterial identity(RelaySettings settings) throws IOException {
        Path state = settings.effectiveStateDir();
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

        @Option(names = "--config", paramLabel = "FILE",
                description = "Configuration file whose state-dir to use, as serving with it would.")
        Path config;

        @Option(names = "--state-dir", paramLabel = "DIR",
                description = "Where the relay keeps its certificate and key (default: ~/.fsp/relay).")
        String stateDir;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            KeyMaterial identity;
            try {
                identity = identity(RelaySettings.load(Optional.ofNullable(config),
                        ConfigSource.options(spec.commandLine().getParseResult(), RelaySettings.class)));
            } catch (ConfigException e) {
                return usage(err, e.getMessage());
            } catch (IOException e) {
                err.println(certificateProblem(e));
                err.flush();
                return ExitCode.FAILURE;
            }
            out.println(identity.fingerprint());
            out.flush();
            err.println("fsp-relay: give it to the server as --relay HOST:PORT=" + identity.fingerprint());
            err.flush();
            return ExitCode.OK;
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new RelayCommand()).execute(args));
    }
}

package io.fsp.relay;

import io.fsp.config.ConfigException;
import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.net.MeridianService;
import io.fsp.net.HostPort;
import io.fsp.options.SettingOptions;
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
 * {@code max-retain}), declared once in {@link RelaySettings#ALL} with its help; {@link SettingOptions} makes the
 * options and reads back what picocli matched. A setting is added by declaring it there with its component (and its
 * line in {@code conf/relay.conf.example}).
 * {@code listen} and {@code store} are required for serving and checked in {@link #call()},
 * since picocli would demand them of the subcommand too and they may come from the file.
 */
@Command(name = "fsp-relay", mixinStandardHelpOptions = true, version = "fsp-relay 0.1.0",
        customSynopsis = {"fsp-relay --listen=HOST:PORT --store=DIR [--trust-server=FINGERPRINT...] [OPTIONS]",
                "fsp-relay --config=FILE [OPTIONS]",
                "fsp-relay join CODE SERVER[:PORT] [--config=FILE | --state-dir=DIR --listen=HOST:PORT]",
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
        subcommands = {RelayCommand.FingerprintCommand.class, JoinCommand.class}, modelTransformer = RelayCommand.DeclaredOptions.class)
public final class RelayCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE",
            description = "Configuration file: one 'key = value' per line, each key an option of this command"
                    + " without its '--' (see conf/relay.conf.example); options given here override it.")
    Path config;

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
                    SettingOptions.source(spec.commandLine().getParseResult(), RelaySettings.ALL));
        } catch (ConfigException e) {
            return usage(err, e.getMessage());
        }
        List<String> missing = settings.missingForServing();
        if (!missing.isEmpty()) {
            return usage(err, "missing required option" + (missing.size() > 1 ? "s: " : ": ") + String.join(", ", missing)
                    + " (options, or keys of the --config file; or: fsp-relay fingerprint [--state-dir=DIR])");
        }
        if (settings.serving().trustServer().isEmpty()
                && !java.nio.file.Files.exists(settings.effectiveStateDir().resolve(JoinedServers.FILE))) {
            err.println("fsp-relay: trusting no server yet: join one with 'fsp-relay join CODE SERVER' (same --state-dir),"
                    + " or give --trust-server FINGERPRINT");
            err.flush();
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
            err.println("fsp-relay: cannot start on " + settings.serving().listen().orElseThrow() + ": " + e.getMessage());
            err.flush();
            return ExitCode.FAILURE;
        }
        if (settings.serving().meridian().isPresent() || !settings.serving().meridianBootstrap().isEmpty()) {
            try {
                overlay = joinOverlay(relay, settings);
            } catch (IllegalArgumentException e) {
                relay.close();
                return usage(err, e.getMessage());
            } catch (RuntimeException e) {
                relay.close();
                err.println("fsp-relay: cannot join the Meridian overlay on " + settings.serving().meridian().orElse(null) + ": "
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
        InetSocketAddress bind = settings.serving().meridian().map(HostPort::toSocketAddress)
                .orElseGet(() -> new InetSocketAddress(relay.address().getAddress(), relay.address().getPort()));
        List<InetSocketAddress> bootstrap = settings.serving().meridianBootstrap().stream().map(HostPort::toSocketAddress).toList();
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
                    "Give it to a server as --relay HOST:PORT=FINGERPRINT."},
            modelTransformer = RelayCommand.StateDirOption.class)
    static final class FingerprintCommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--config", paramLabel = "FILE",
                description = "Configuration file whose state-dir to use, as serving with it would.")
        Path config;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            KeyMaterial identity;
            try {
                identity = identity(RelaySettings.load(Optional.ofNullable(config),
                        SettingOptions.source(spec.commandLine().getParseResult(), RelaySettings.ALL)));
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

    /** Every declared setting as an option ({@link RelaySettings#ALL}). */
    static final class DeclaredOptions implements CommandLine.IModelTransformer {
        @Override
        public CommandSpec transform(CommandSpec spec) {
            return SettingOptions.add(spec, RelaySettings.ALL, key -> true);
        }
    }

    /** {@code --state-dir} alone, for {@code fingerprint}. */
    static final class StateDirOption implements CommandLine.IModelTransformer {
        @Override
        public CommandSpec transform(CommandSpec spec) {
            return SettingOptions.add(spec, RelaySettings.ALL, "state-dir"::equals);
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new RelayCommand()).execute(args));
    }
}

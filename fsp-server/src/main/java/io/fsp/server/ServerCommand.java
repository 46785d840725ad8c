package io.fsp.server;

import io.fsp.config.ConfigException;
import io.fsp.config.ConfigLoader;
import io.fsp.config.ConfigSource;
import io.fsp.net.HostPort;
import io.fsp.program.ExitCode;
import io.fsp.server.auth.PasswordHasher;
import io.fsp.server.config.ServerConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import sun.misc.Signal;

/**
 * {@code fsp-server}: starts the FTP/FTPS server. Settings come from the defaults, then {@code --config
 * FILE}, then the options given here, each the {@link ServerConfig} key of its name (read by
 * {@link ConfigSource#options}; the option fields declare the syntax and the help). Once every address accepts connections it prints, per address,
 * {@code fsp-server: listening on 127.0.0.1:2121, certificate sha256 AB:CD:…} on standard output; logs go
 * to standard error.
 */
@Command(name = "fsp-server", mixinStandardHelpOptions = true, version = "fsp-server 0.1.0",
        sortOptions = false, usageHelpAutoWidth = true,
        description = {"FTP/FTPS server (RFC 959, 2228, 2389, 2428, 3659, 4217) with the FSP striped-transfer extension.",
                "Quick start: fsp-server --listen 127.0.0.1:2121 --root DIR --user alice:secret --allow-plain-login"},
        subcommands = {ServerCommand.HashPasswordCommand.class, ServerCommand.FingerprintCommand.class},
        exitCodeOnInvalidInput = ExitCode.USAGE,
        exitCodeOnExecutionException = ExitCode.INTERNAL, exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:stopped normally", "1:could not start (address in use, unreadable certificate or users file)",
                "2:usage error (an option, a key or value of the --config file, the users file)",
                "4:internal error"})
public final class ServerCommand implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    /** Counted down to stop a server started by {@link #call()} (by the shutdown hook, or by tests). */
    final CountDownLatch stop = new CountDownLatch(1);

    @Option(names = "--listen", paramLabel = "HOST:PORT",
            description = "Address to listen on; repeatable; port 0 picks a free port; IPv6 as [::1]:0 (default: 127.0.0.1:2121).")
    List<String> listen;

    @Option(names = "--root", paramLabel = "DIR", description = "Directory users see as \"/\" (for --user, --anonymous, and users without a ROOT).")
    String root;

    @Option(names = "--user", paramLabel = "NAME[:PASSWORD]", description = "A read-write user; repeatable. Without :PASSWORD the password"
            + " comes from $FSP_PASSWORD_NAME (NAME in capitals, other characters as _) or is asked on the terminal, so"
            + " that it does not show in ps. For real use prefer --users-file with hashed passwords.")
    List<String> user;

    @Option(names = "--users-file", paramLabel = "FILE", description = "Users file: NAME ACCESS ARGON2ID-HASH [ROOT] per line (see conf/users.example).")
    String usersFile;

    @Option(names = "--allow-plain-login", description = "Accept passwords on a control connection without TLS (default: TLS required).")
    Boolean allowPlainLogin;

    @Option(names = "--anonymous", description = "Allow read-only anonymous login (USER anonymous or ftp) to --root.")
    Boolean anonymous;

    @Option(names = "--passive-ports", paramLabel = "LOW-HIGH", description = "Ports for passive data connections (default: free ports above the system's ephemeral range).")
    String passivePorts;

    @Option(names = "--announce-address", paramLabel = "ADDR", description = "IPv4 address PASV replies announce, e.g. behind NAT (default: the control connection's local address).")
    String announceAddress;

    @Mixin
    SettingsOptions settingsOptions;

    @Option(names = "--require-tls-session-reuse", description = "Refuse protected data connections that do not resume the control connection's TLS session (default: off).")
    Boolean requireTlsSessionReuse;

    @Option(names = "--socket-buffer", paramLabel = "SIZE", description = "Fix both socket buffers of data and relay"
            + " connections at SIZE, e.g. 8M, turning off the kernel's autotuning (default: 0, autotuning; see"
            + " conf/server.conf.example).")
    String socketBuffer;

    @Option(names = "--digest-cache", paramLabel = "SIZE", description = "Keep the plaintext digests of large files'"
            + " blocks between transfers, up to SIZE, so that a file served again is not hashed again; 0 keeps none"
            + " (default: 32M).")
    String digestCache;

    @Option(names = "--max-retain", paramLabel = "DURATION", description = "The longest retention an evacuation (FSPO"
            + " retain) may ask relays for, e.g. 7d (default: 30d).")
    String maxRetain;

    @Option(names = "--retain-user", paramLabel = "NAME=DURATION", description = "User NAME may evacuate (FSPO retain)"
            + " for at most DURATION, within --max-retain, e.g. alice=7d; repeatable (default: nobody; never anonymous).")
    List<String> retainUser;

    @Option(names = "--metrics", paramLabel = "HOST:PORT", description = "Serve Prometheus metrics at"
            + " http://HOST:PORT/metrics (plain HTTP, no authentication: bind it where only the scraper reaches, e.g."
            + " 127.0.0.1:9463; default: none).")
    String metrics;

    @Option(names = "--idle-timeout", paramLabel = "DURATION", description = "Close control connections idle this long, e.g. 300s (default: 5m).")
    String idleTimeout;

    @Option(names = "--login-grace-time", paramLabel = "DURATION", description = "Close a control connection not logged in this long after it opened, e.g. 30s (default: 60s).")
    String loginGraceTime;

    @Option(names = "--data-timeout", paramLabel = "DURATION", description = "Abort a transfer whose data connection moves no byte this long, with 426, e.g. 60s (default: 300s).")
    String dataTimeout;

    @Option(names = "--max-connections", paramLabel = "N", description = "Control connections in total (default: 256).")
    String maxConnections;

    @Option(names = "--max-connections-per-address", paramLabel = "N", description = "Control connections per client address (default: 32).")
    String maxConnectionsPerAddress;

    @Option(names = "--login-failure-delay", paramLabel = "DURATION", description = "Delay after a failed login, doubling per failure up to 16x (default: 1s).")
    String loginFailureDelay;

    @Option(names = "--relay", paramLabel = "HOST:PORT=FINGERPRINT",
            description = "A relay for striped transfers, pinned by the certificate fingerprint it prints at start or with 'fsp-relay fingerprint'; repeatable.")
    List<String> relay;

    @Option(names = "--collect-relay", paramLabel = "IP:PORT[=FINGERPRINT]",
            description = "A relay FCOL may collect from beside the --relay ones (without FINGERPRINT: with a certificate"
                    + " of --relay or --trust-relay); repeatable.")
    List<String> collectRelay;

    @Option(names = "--relay-blocks-over-tls", description = "Push blocks to relays over TLS too, so that frame"
            + " headers are hidden (default: over a clear link beside each relay's TLS connection; blocks are sealed"
            + " either way).")
    Boolean relayBlocksOverTls;

    @Option(names = "--fsp-without-tls", description = "Allow the FSP extension on a control connection without TLS (default: TLS required; the transfer keys travel on it).")
    Boolean fspWithoutTls;

    @Option(names = "--meridian", paramLabel = "HOST:PORT",
            description = "UDP address of the server's Meridian endpoint, for selecting relays by RTT (default with"
                    + " --meridian-entry: the first --listen host, any port; a concrete IP).")
    String meridian;

    @Option(names = "--meridian-entry", paramLabel = "HOST:PORT",
            description = "Meridian node (e.g. a relay's) through which relay selections enter the overlay.")
    String meridianEntry;

    @Option(names = "--trust-relay", paramLabel = "FINGERPRINT",
            description = "A relay fingerprint to use when the overlay finds it, beside those of --relay; repeatable.")
    List<String> trustRelay;

    @Option(names = "--trust-overlay-relays",
            description = "Use any relay the overlay finds, pinned to the fingerprint it claims (default: only trusted ones).")
    Boolean trustOverlayRelays;

    @Option(names = {"-v", "--verbose"}, description = "Log every command and reply (PASS masked).")
    boolean verbose;

    @Option(names = {"-q", "--quiet"}, description = "Log warnings and errors only.")
    boolean quiet;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ServerConfig settings;
        try {
            settings = settingsOptions.settings(spec.commandLine().getParseResult());
        } catch (ConfigException e) {
            err.println("fsp-server: " + e.getMessage());
            return ExitCode.USAGE;
        }
        FspServer server;
        try {
            server = FspServer.start(settings);
        } catch (ConfigException e) { // settings that do not fit together, a bad users file: as a bad value
            err.println("fsp-server: " + e.getMessage());
            return ExitCode.USAGE;
        } catch (java.io.IOException e) {
            err.println("fsp-server: " + e.getMessage());
            return ExitCode.FAILURE;
        }
        reloadOnHangup(new ConfigReload(server, settings, settingsOptions.config == null
                ? "the command line (no --config file)" : settingsOptions.config.toString(),
                () -> settingsOptions.settings(spec.commandLine().getParseResult())), err);
        Thread hook = new Thread(() -> {
            server.close();
            stop.countDown();
        }, "fsp-server-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        for (var address : server.addresses()) {
            out.println("fsp-server: listening on " + HostPort.format(address)
                    + ", certificate sha256 " + server.fingerprint());
        }
        server.metricsAddress().ifPresent(a -> out.println("fsp-server: metrics on http://" + HostPort.format(a)
                + "/metrics"));
        out.flush();
        stop.await();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down; the hook closes the server
        }
        server.close();
        return ExitCode.OK;
    }

    /**
     * {@code kill -HUP} reloads the configuration, as Unix daemons do and systemd's {@code ExecReload} expects.
     * A signal, not a watched file: the operator says when an edit is complete (an editor's half-written file is
     * never read), the reload is one step a script or unit can wait on, and no thread polls. The handler replaces
     * the JVM's default for SIGHUP (exit), so a closed terminal no longer stops the server either.
     */
    private static void reloadOnHangup(ConfigReload reload, PrintWriter err) {
        try {
            if (Signal.handle(new Signal("HUP"), s -> reload.reload()) == sun.misc.SignalHandler.SIG_IGN) {
                // Ignored from the start (nohup): the JVM keeps it ignored and the handler never runs.
                err.println("fsp-server: SIGHUP is ignored in this process (started under nohup?): no configuration"
                        + " reload on SIGHUP; restart to change relays, or start the server without nohup");
                err.flush();
            }
        } catch (IllegalArgumentException e) { // the JVM runs with -Xrs, or the platform has no SIGHUP
            err.println("fsp-server: no configuration reload on SIGHUP (" + e.getMessage() + "); restart to change relays");
            err.flush();
        }
    }

    /**
     * Where the settings and the TLS certificate come from: serving and {@code fingerprint} take the same options,
     * so that both find the same certificate.
     */
    static final class SettingsOptions {
        @Option(names = "--config", paramLabel = "FILE", description = "Configuration file (see conf/server.conf.example); options given here override it."
                + " kill -HUP reads it again and applies its relay lines without a restart.")
        Path config;

        @Option(names = "--state-dir", paramLabel = "DIR", description = "Where the generated TLS certificate and key are kept (default: ~/.fsp/server).")
        String stateDir;

        @Option(names = "--certificate", paramLabel = "PEM", description = "TLS certificate chain (PEM); with --private-key, instead of the generated one.")
        String certificate;

        @Option(names = "--private-key", paramLabel = "PEM", description = "TLS private key (PEM, unencrypted).")
        String privateKey;

        /**
         * The defaults, overridden by {@code --config FILE}, overridden by the options given: each option of a
         * {@link ServerConfig} key by its name ({@code --max-retain} is {@code max-retain}), these and the command's.
         */
        ServerConfig settings(CommandLine.ParseResult parsed) throws ConfigException {
            ConfigSource file = config == null ? ConfigSource.empty("defaults") : ConfigSource.read(config);
            return ConfigLoader.load(ServerConfig.defaults(), file, ConfigSource.options(parsed, ServerConfig.class));
        }
    }

    /** {@code fsp-server hash-password}: reads a password from standard input, prints its Argon2id hash. */
    @Command(name = "hash-password", mixinStandardHelpOptions = true,
            description = {"Reads a password (first line of standard input) and prints its Argon2id hash for the users file."})
    static final class HashPasswordCommand implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            String password;
            if (System.console() != null) {
                char[] p = System.console().readPassword("Password: ");
                password = p == null ? null : new String(p);
            } else {
                password = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            }
            if (password == null || password.isEmpty()) {
                spec.commandLine().getErr().println("fsp-server hash-password: no password on standard input");
                return ExitCode.USAGE;
            }
            spec.commandLine().getOut().println(PasswordHasher.hash(password));
            spec.commandLine().getOut().flush();
            return ExitCode.OK;
        }
    }

    /**
     * {@code fsp-server fingerprint}: prints the fingerprint of the server's certificate, found or created as
     * serving would, so that relays can be given {@code --trust-server FINGERPRINT} before the server first
     * starts. It reads the certificate settings of the configuration and opens no socket.
     */
    @Command(name = "fingerprint", mixinStandardHelpOptions = true,
            description = {"Prints the SHA-256 fingerprint of the server's TLS certificate (creating the certificate"
                    + " and key in the state directory if they do not exist yet) and exits, without serving.",
                    "Give it to relays as --trust-server FINGERPRINT, to clients as --trust FINGERPRINT and to a safe site"
                            + " that may collect this server's evacuations as fsp collect --trust-origin FINGERPRINT."})
    static final class FingerprintCommand implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Mixin
        SettingsOptions settingsOptions;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            String fingerprint;
            try {
                fingerprint = FspServer.loadKey(settingsOptions.settings(spec.commandLine().getParseResult()))
                        .fingerprint().toString();
            } catch (ConfigException e) {
                err.println("fsp-server: " + e.getMessage());
                return ExitCode.USAGE;
            } catch (java.io.IOException e) {
                err.println("fsp-server: " + e.getMessage());
                return ExitCode.FAILURE;
            }
            out.println(fingerprint);
            out.flush();
            err.println("fsp-server: give it to relays as --trust-server " + fingerprint);
            err.flush();
            return ExitCode.OK;
        }
    }

    public static void main(String[] args) {
        boolean verbose = List.of(args).contains("-v") || List.of(args).contains("--verbose");
        boolean quiet = List.of(args).contains("-q") || List.of(args).contains("--quiet");
        // slf4j-simple reads these once, before the first logger exists.
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", verbose ? "debug" : quiet ? "warn" : "info");
        System.setProperty("org.slf4j.simpleLogger.log.io.netty", verbose ? "info" : "warn");
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
        System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSS");
        System.setProperty("org.slf4j.simpleLogger.showShortLogName", "true");
        System.exit(new CommandLine(new ServerCommand()).execute(args));
    }
}

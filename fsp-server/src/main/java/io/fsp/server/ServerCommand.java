package io.fsp.server;

import io.fsp.config.ConfigException;
import io.fsp.config.ConfigSource;
import io.fsp.net.HostPort;
import io.fsp.options.SettingOptions;
import io.fsp.program.ExitCode;
import io.fsp.server.auth.PasswordHasher;
import io.fsp.server.config.ServerConfig;
import io.fsp.server.config.ServerSettings;
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
 * FILE}, then the options given here: each setting {@link ServerSettings} declares is the option of its name, with
 * its help. Once every address accepts connections it prints, per address,
 * {@code fsp-server: listening on 127.0.0.1:2121, certificate sha256 AB:CD:…} on standard output; logs go
 * to standard error.
 */
@Command(name = "fsp-server", mixinStandardHelpOptions = true, version = "fsp-server 0.1.0",
        sortOptions = false, usageHelpAutoWidth = true,
        description = {"FTP/FTPS server (RFC 959, 2228, 2389, 2428, 3659, 4217) with the FSP striped-transfer extension.",
                "Quick start: fsp-server --listen 127.0.0.1:2121 --root DIR --user alice:secret --allow-plain-login"},
        subcommands = {ServerCommand.HashPasswordCommand.class, ServerCommand.FingerprintCommand.class,
                InviteCommand.class, RelaysCommand.class},
        modelTransformer = ServerCommand.DeclaredOptions.class,
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

    @Mixin
    SettingsOptions settingsOptions;

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

    /** Every declared setting as an option, in the order of {@link ServerSettings}. */
    static final class DeclaredOptions implements CommandLine.IModelTransformer {
        @Override
        public CommandLine.Model.CommandSpec transform(CommandLine.Model.CommandSpec spec) {
            return SettingOptions.add(spec, ServerSettings.ALL, key -> true);
        }
    }

    /** The settings that say where the TLS certificate is, for {@code fingerprint}: serving finds the same one. */
    static final class CertificateOptions implements CommandLine.IModelTransformer {
        @Override
        public CommandLine.Model.CommandSpec transform(CommandLine.Model.CommandSpec spec) {
            return SettingOptions.add(spec, ServerSettings.ALL, List.of("state-dir", "certificate", "private-key")::contains);
        }
    }

    /** The configuration file, read under the options given; serving and {@code fingerprint} take it. */
    static final class SettingsOptions {
        @Option(names = "--config", paramLabel = "FILE", description = "Configuration file (see conf/server.conf.example); options given here override it."
                + " kill -HUP reads it again and applies its relay lines without a restart.")
        Path config;

        /**
         * The defaults, overridden by {@code --config FILE}, overridden by the options given: each option of a
         * declared setting by its name ({@code --max-retain} is {@code max-retain}).
         */
        ServerConfig settings(CommandLine.ParseResult parsed) throws ConfigException {
            ConfigSource file = config == null ? ConfigSource.empty("defaults") : ConfigSource.read(config);
            return ServerSettings.ALL.load(file, SettingOptions.source(parsed, ServerSettings.ALL));
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
                            + " that may collect this server's evacuations as fsp collect --trust-origin FINGERPRINT."},
            modelTransformer = ServerCommand.CertificateOptions.class)
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

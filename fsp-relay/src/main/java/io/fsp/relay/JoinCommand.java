package io.fsp.relay;

import io.fsp.config.ConfigException;
import io.fsp.join.InviteCode;
import io.fsp.join.JoinExchange;
import io.fsp.net.HostPort;
import io.fsp.options.SettingOptions;
import io.fsp.program.ExitCode;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.KeyMaterial;
import io.fsp.tls.PinnedTrustManager;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code fsp-relay join CODE SERVER[:PORT]}: joins the relay to a server with the one-time code its operator gave
 * ({@code fsp-server invite}), over the server's FTP control port after AUTH TLS (docs/protocol.md, "JOIN"). The
 * server's certificate is accepted for the exchange only: the code-keyed MACs prove both sides saw the same two
 * fingerprints, and only then is the server's written to {@code joined-servers} in the state directory, which a
 * running relay reads at once.
 */
@Command(name = "join", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Joins this relay to a server with the one-time code its operator printed with 'fsp-server invite':"
                + " the server adds the relay (its address and certificate) to the relays it uses, without a restart,"
                + " and the relay trusts that server from then on (recorded in joined-servers in --state-dir; a running"
                + " relay needs no restart).",
                "Run it with the relay's own --config or --state-dir, so it presents the relay's certificate."},
        modelTransformer = JoinCommand.JoinOptions.class,
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:joined", "1:refused by the server (wrong, expired, revoked or used code), or not reached",
                "2:usage error"})
final class JoinCommand implements Callable<Integer> {
    static final int DEFAULT_PORT = 2121;
    private static final int TIMEOUT_MS = 30_000;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "CODE", description = "The code, as XXXX-XXXX-XXXX-XXXX (case and dashes do not matter).")
    String code;

    @Parameters(index = "1", paramLabel = "SERVER[:PORT]", description = "The server's FTP control address (port: "
            + DEFAULT_PORT + " unless given).")
    String server;

    @Option(names = "--config", paramLabel = "FILE", description = "The relay's configuration file (its state-dir and listen).")
    Path config;

    @Option(names = "--announce", paramLabel = "HOST:PORT|PORT", description = "Where the server reaches the relay"
            + " (default: --listen; its port alone when --listen is a wildcard address, then the server takes the host"
            + " this command connects from).")
    String announce;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        InviteCode invite;
        HostPort target;
        RelaySettings settings;
        String address;
        try {
            invite = InviteCode.parse(code);
            target = server.contains(":") ? HostPort.parse(server) : new HostPort(server, DEFAULT_PORT);
            settings = RelaySettings.load(Optional.ofNullable(config),
                    SettingOptions.source(spec.commandLine().getParseResult(), RelaySettings.ALL));
            address = announced(settings);
        } catch (IllegalArgumentException | ConfigException e) {
            err.println("fsp-relay join: " + e.getMessage());
            err.flush();
            return ExitCode.USAGE;
        }
        try {
            KeyMaterial identity = identity(settings);
            Fingerprint joined = exchange(invite, target, identity.fingerprint(), address);
            JoinedServers.add(settings.effectiveStateDir(), joined, target.toString());
            out.println("fsp-relay: joined " + target + " (certificate sha256 " + joined + "); it uses this relay at "
                    + address + " and this relay trusts it now (" + settings.effectiveStateDir().resolve(JoinedServers.FILE)
                    + ")");
            out.flush();
            return ExitCode.OK;
        } catch (Refused e) {
            err.println("fsp-relay join: " + target + " refused: " + e.getMessage() + "; nothing changed");
        } catch (IOException | GeneralSecurityException e) {
            err.println("fsp-relay join: " + target + ": " + e.getMessage() + "; nothing changed");
        }
        err.flush();
        return ExitCode.FAILURE;
    }

    /**
     * The relay's certificate, made here if the relay has not started yet (or is starting: the two wait on one lock),
     * and what this made in the state directory handed to the owner of the directory above it that existed.
     */
    private static KeyMaterial identity(RelaySettings settings) throws IOException {
        Path state = settings.effectiveStateDir().toAbsolutePath();
        Path above = state;
        while (!Files.isDirectory(above) && above.getParent() != null) {
            above = above.getParent();
        }
        Set<Path> before = entries(state);
        KeyMaterial identity = RelayCommand.identity(settings);
        List<Path> made = new ArrayList<>();
        if (!above.equals(state)) {
            made.add(state);
        }
        entries(state).stream().filter(p -> !before.contains(p)).forEach(made::add);
        JoinedServers.handOver(above, made);
        return identity;
    }

    private static Set<Path> entries(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return Set.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.collect(Collectors.toSet());
        }
    }

    /** What the relay announces: {@code --announce}, else {@code --listen} (its port alone for a wildcard host). */
    private String announced(RelaySettings settings) {
        if (announce != null) {
            String a = announce.strip();
            return a.chars().allMatch(c -> c >= '0' && c <= '9') ? a : HostPort.parse(a).requirePeerPort().toString();
        }
        HostPort listen = settings.serving().listen().orElseThrow(() -> new IllegalArgumentException(
                "where does the server reach this relay? give --listen (or the relay's --config) or --announce"));
        listen.requirePeerPort();
        boolean wildcard = listen.literalAddress().map(java.net.InetAddress::isAnyLocalAddress).orElse(false);
        return wildcard ? Integer.toString(listen.port()) : listen.toString();
    }

    /** Runs the exchange; returns the server's fingerprint once both MACs matched. */
    private static Fingerprint exchange(InviteCode invite, HostPort target, Fingerprint relay, String address)
            throws IOException, GeneralSecurityException, Refused {
        try (Socket plain = new Socket()) {
            plain.connect(target.toSocketAddress(), TIMEOUT_MS);
            plain.setSoTimeout(TIMEOUT_MS);
            ControlLines control = new ControlLines(plain.getInputStream(), plain.getOutputStream());
            expect(control.read(), 220, "greeting");
            control.send("AUTH TLS");
            expect(control.read(), 234, "AUTH TLS");
            SSLContext tls = SSLContext.getInstance("TLS");
            // Any certificate for now: the exchange below proves which one the code's holder presents.
            tls.init(null, new TrustManager[] {PinnedTrustManager.any()}, null);
            InetSocketAddress at = (InetSocketAddress) plain.getRemoteSocketAddress();
            try (SSLSocket secure = (SSLSocket) tls.getSocketFactory().createSocket(plain, at.getHostString(),
                    at.getPort(), true)) {
                secure.startHandshake();
                Fingerprint server = Fingerprint.of((X509Certificate) secure.getSession().getPeerCertificates()[0]);
                control.use(secure.getInputStream(), secure.getOutputStream());
                JoinExchange exchange = new JoinExchange(JoinExchange.Role.RELAY, invite.verifier());
                control.send("JOIN " + invite.id() + " " + exchange.round1());
                String[] rounds = expect(control.read(), 335, "JOIN").text().split(" ");
                if (rounds.length != 2) {
                    throw new IOException("JOIN: the server's reply holds " + rounds.length + " fields (expected 2)");
                }
                try {
                    exchange.peerRound1(rounds[0]);
                    exchange.peerRound2(rounds[1]);
                } catch (JoinExchange.JoinRefused e) {
                    throw new IOException("the server's J-PAKE payloads do not check: " + e.getMessage());
                }
                JoinExchange.Binding binding = new JoinExchange.Binding(invite.id(), server.toString(), relay.toString(),
                        address);
                control.send("JOIN " + exchange.round2() + " " + relay + " " + address + " " + exchange.mac(binding));
                String[] done = expect(control.read(), 235, "JOIN").text().split(" ");
                if (!exchange.peerMacMatches(binding, done[0])) {
                    throw new Refused("the server's confirmation does not match: it is not the server that issued the"
                            + " code, or someone is in between (certificate sha256 " + server + "); this relay does not"
                            + " trust it");
                }
                try {
                    control.send("QUIT");
                } catch (IOException e) {
                    // joined already
                }
                return server;
            }
        }
    }

    private static ControlLines.Reply expect(ControlLines.Reply reply, int code, String what) throws Refused {
        if (reply.code() != code) {
            throw new Refused(reply.text().startsWith(what) ? reply.toString() : what + ": " + reply);
        }
        return reply;
    }

    /** The server refused, or did not confirm. */
    static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    /** {@code --state-dir} and {@code --listen}, as serving reads them. */
    static final class JoinOptions implements CommandLine.IModelTransformer {
        @Override
        public CommandSpec transform(CommandSpec spec) {
            return SettingOptions.add(spec, RelaySettings.ALL, k -> k.equals("state-dir") || k.equals("listen"));
        }
    }
}

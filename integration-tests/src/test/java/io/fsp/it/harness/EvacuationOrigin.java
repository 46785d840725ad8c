package io.fsp.it.harness;

import io.fsp.it.harness.FspCommand.Result;
import io.fsp.tls.Certificates;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.KeyMaterial;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * An origin that evacuates to relays on 127.0.0.1, every part a real process: {@code fsp-server} serving
 * {@code root}, its certificate in {@code dir/server-state}, letting {@link #USER} retain for 7 days, and one
 * {@code fsp-relay} per entry of the relay options (under {@code dir/relayN}), each at an address of its own that
 * {@link #restart} keeps, so that a relay started again is the same relay with what it held.
 */
public final class EvacuationOrigin implements AutoCloseable {
    public static final String USER = "ops";
    public static final String PASSWORD = "evacuate-me";

    private final Path dir;
    private final Fingerprint fingerprint;
    private final List<List<String>> options;
    private final List<InetSocketAddress> addresses = new ArrayList<>();
    private final List<RelayProcess> relays = new ArrayList<>();
    private ServerProcess server;

    private EvacuationOrigin(Path dir, Fingerprint fingerprint, List<List<String>> options) {
        this.dir = dir;
        this.fingerprint = fingerprint;
        this.options = options;
    }

    /** Starts the relays, one per entry of {@code relayOptions} (fsp-relay options), then the server. */
    public static EvacuationOrigin start(Path dir, Path root, List<List<String>> relayOptions) throws Exception {
        Path state = Files.createDirectories(dir.resolve("server-state"));
        KeyMaterial key = Certificates.selfSigned("fsp-server");
        Certificates.write(key, state.resolve("server-cert.pem"), state.resolve("server-key.pem"));
        EvacuationOrigin origin = new EvacuationOrigin(dir, key.fingerprint(), List.copyOf(relayOptions));
        try {
            List<String> args = new ArrayList<>(List.of("--listen", "127.0.0.1:0", "--root", root.toString(), "--user",
                    USER, "--state-dir", state.toString(), "--login-failure-delay", "0s", "--retain-user",
                    USER + "=7d"));
            for (int i = 0; i < relayOptions.size(); i++) {
                try (ServerSocket s = new ServerSocket(0)) {
                    origin.addresses.add(new InetSocketAddress("127.0.0.1", s.getLocalPort()));
                }
                origin.relays.add(origin.startRelay(i));
                args.addAll(List.of("--relay", origin.address(i) + "=" + origin.relays.get(i).fingerprint()));
            }
            origin.server = ServerProcess.start(root, args, 1, Map.of("FSP_PASSWORD_" + USER.toUpperCase(), PASSWORD));
            return origin;
        } catch (Exception | Error e) {
            origin.close();
            throw e;
        }
    }

    private RelayProcess startRelay(int i) throws IOException {
        return RelayProcess.start(dir.resolve("relay" + i), addresses.get(i), fingerprint,
                options.get(i).toArray(String[]::new));
    }

    public ServerProcess server() {
        return server;
    }

    /** The origin's certificate fingerprint: what the relays trust and the safe site checks. */
    public Fingerprint fingerprint() {
        return fingerprint;
    }

    public RelayProcess relay(int i) {
        return relays.get(i);
    }

    /** Relay {@code i} as the manifest and the reports name it: {@code 127.0.0.1:PORT}. */
    public String address(int i) {
        return "127.0.0.1:" + addresses.get(i).getPort();
    }

    /** The index of the relay at {@code port}. */
    public int relayAt(int port) {
        for (int i = 0; i < addresses.size(); i++) {
            if (addresses.get(i).getPort() == port) {
                return i;
            }
        }
        throw new AssertionError("no relay at port " + port);
    }

    /** Starts relay {@code i} again as it was (same directory, address and options) unless it runs. */
    public void restart(int i) throws IOException {
        if (!relays.get(i).isAlive()) {
            relays.set(i, startRelay(i));
        }
    }

    /** {@code fsp evacuate fsp://ops@…/PATH --trust FP ARGS} as a process, as the origin's operator runs it. */
    public Result evacuate(String path, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("evacuate", "fsp://" + USER + "@127.0.0.1:" + server.port() + "/"
                + path, "--trust", fingerprint.toString()));
        command.addAll(Arrays.asList(args));
        return FspCommand.runProcess(dir, Map.of("FSP_PASSWORD", PASSWORD), command);
    }

    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
        relays.forEach(RelayProcess::close);
    }
}

package io.fsp.it.harness;

import io.fsp.client.control.ControlChannel;
import io.fsp.tls.Certificates;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.KeyMaterial;
import io.fsp.tls.PinnedTrustManager;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Two FSP server processes for third-party transfers (FCOL, {@code fsp transfer}): site A, alice's, stripes over
 * relays pinned to its certificate ({@link #key()}); site B, bob's, collects from the relays its operator allows.
 * Start the relays, add their options to {@link #argsA()} and {@link #argsB()}, then {@link #start()}.
 */
public final class TwoSites implements AutoCloseable {
    public static final String ALICE = "alice";
    public static final String ALICE_PASSWORD = "source-secret";
    public static final String BOB = "bob";
    public static final String BOB_PASSWORD = "destination-secret";

    private final KeyMaterial key;
    private final Path rootA;
    private final Path rootB;
    private final List<String> argsA;
    private final List<String> argsB;
    private final Map<String, String> envB = new java.util.HashMap<>(Map.of("FSP_PASSWORD_BOB", BOB_PASSWORD));
    private ServerProcess a;
    private ServerProcess b;

    private TwoSites(Path dir) throws IOException {
        rootA = Files.createDirectories(dir.resolve("site-a"));
        rootB = Files.createDirectories(dir.resolve("site-b"));
        Path stateA = Files.createDirectories(dir.resolve("state-a"));
        key = Certificates.selfSigned("fsp-server");
        Certificates.write(key, stateA.resolve("server-cert.pem"), stateA.resolve("server-key.pem"));
        argsA = new ArrayList<>(List.of("--listen", "127.0.0.1:0", "--root", rootA.toString(), "--user", ALICE,
                "--state-dir", stateA.toString(), "--login-failure-delay", "0s"));
        argsB = new ArrayList<>(List.of("--listen", "127.0.0.1:0", "--root", rootB.toString(), "--user", BOB,
                "--state-dir", dir.resolve("state-b").toString(), "--login-failure-delay", "0s"));
    }

    /** The roots and A's certificate under {@code dir}; nothing runs yet. */
    public static TwoSites prepare(Path dir) throws IOException {
        return new TwoSites(dir);
    }

    /** A's certificate and key: relays A uses are pinned to its fingerprint. */
    public KeyMaterial key() {
        return key;
    }

    public Path rootA() {
        return rootA;
    }

    public Path rootB() {
        return rootB;
    }

    /** Empties B's root (tests sharing the two sites each start from an empty one); links are removed, not followed. */
    public void emptyRootB() throws IOException {
        try (Stream<Path> all = Files.walk(rootB)) {
            for (Path p : all.filter(p -> !p.equals(rootB)).sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p); // deepest first
            }
        }
    }

    /** A's command line, to add to before {@link #start()}. */
    public List<String> argsA() {
        return argsA;
    }

    /** B's command line, to add to before {@link #start()}. */
    public List<String> argsB() {
        return argsB;
    }

    /** B's environment (its users' passwords), to add to before {@link #start()}. */
    public Map<String, String> envB() {
        return envB;
    }

    /** {@code relay} as the {@code relay} and {@code collect-relay} options name it: {@code 127.0.0.1:PORT=FINGERPRINT}. */
    public static String option(RelayProcess relay) {
        return "127.0.0.1:" + relay.address().getPort() + "=" + relay.fingerprint();
    }

    /** Starts A, then B. */
    public void start() throws IOException {
        a = ServerProcess.start(rootA, argsA, 1, Map.of("FSP_PASSWORD_ALICE", ALICE_PASSWORD));
        b = ServerProcess.start(rootB, argsB, 1, envB);
    }

    public ServerProcess a() {
        return a;
    }

    public ServerProcess b() {
        return b;
    }

    /** Alice logged in to A. */
    public ControlChannel source() throws IOException {
        return login(a, ALICE, ALICE_PASSWORD, false);
    }

    /** Bob logged in to B, data connections protected (PROT P), as FCOL needs. */
    public ControlChannel destination() throws IOException {
        return login(b, BOB, BOB_PASSWORD, true);
    }

    /** Logs in to {@code server} over TLS, pinned to its certificate; {@code protect}: PROT P for data connections. */
    public static ControlChannel login(ServerProcess server, String user, String password, boolean protect) throws IOException {
        ControlChannel c = ControlChannel.connect("127.0.0.1", server.port(),
                PinnedTrustManager.of(Set.of(Fingerprint.parse(server.certificateFingerprint()))), Duration.ofSeconds(10));
        c.login(user, password.toCharArray(), protect);
        return c;
    }

    /** Stops B, then A; a server that fails to stop does not keep the other running. */
    @Override
    public void close() {
        for (AutoCloseable c : new AutoCloseable[] {b, a}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception ignored) {
                // stopping anyway
            }
        }
    }
}

package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.ControlConnection;
import io.fsp.it.harness.Fret;
import io.fsp.it.harness.Reply;
import io.fsp.it.harness.ServerProcess;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.Transcript;
import io.fsp.it.harness.TreeDigests;
import io.fsp.relay.FspRelay;
import io.fsp.tls.Certificates;
import io.fsp.tls.KeyMaterial;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Relays added to and removed from a running {@code fsp-server} process: the relay lines of its configuration
 * file are read again on SIGHUP, and the next FRET announces the new list; a file with an error changes nothing;
 * a transfer under way keeps a relay removed meanwhile, whose connection is closed once that transfer is done.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RelayReloadIT {
    private static final String USER = "alice";
    private static final String PASSWORD = "secret";

    @TempDir
    Path dir;
    Path config;
    final Transcript transcript = new Transcript();
    final List<FspRelay> relays = new ArrayList<>();
    ServerProcess server;

    @BeforeEach
    void start() throws Exception {
        Path state = dir.resolve("state");
        Files.createDirectories(state);
        KeyMaterial key = Certificates.selfSigned("fsp-server");
        Certificates.write(key, state.resolve("server-cert.pem"), state.resolve("server-key.pem"));
        for (int i = 0; i < 2; i++) {
            relays.add(StripeRig.startRelay(dir.resolve("relay" + i), key.fingerprint(), 64L << 20));
        }
        Path root = dir.resolve("root");
        Files.createDirectories(root);
        TreeDigests.random(root.resolve("small.bin"), 300_000, 1);
        TreeDigests.random(root.resolve("large.bin"), 8 << 20, 2);
        config = dir.resolve("server.conf");
        writeConfig(relay(0));
        server = ServerProcess.start(root, List.of("--config", config.toString()), 1);
        assertEquals(key.fingerprint().toString(), server.certificateFingerprint());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        relays.forEach(FspRelay::close);
    }

    /** Under nohup SIGHUP stays ignored whatever the server installs: it says so at start instead of reloading silently never. */
    @Test
    void aServerStartedUnderNohupSaysItCannotReload() throws Exception {
        server.close();
        server = ServerProcess.startUnderNohup(dir.resolve("root"), List.of("--config", config.toString()), 1);
        await(() -> server.output().contains("SIGHUP is ignored in this process"), "the warning");
    }

    @Test
    void relaysAreAddedAndRemovedOnSighup() throws Exception {
        assertEquals(ports(0), announcedRelayPorts());

        writeConfig(relay(0), relay(1));
        hangUp("reloaded", 1);
        assertEquals(ports(0, 1), announcedRelayPorts(), server.output());

        writeConfig(relay(0), relay(1), "relay = 127.0.0.1:7001=AB:CD");
        hangUp("refused, nothing changed", 1);
        assertEquals(ports(0, 1), announcedRelayPorts(), "a bad file changes nothing");

        writeConfig(relay(1));
        hangUp("reloaded", 2);
        assertEquals(ports(1), announcedRelayPorts(), server.output());
        await(() -> relays.get(0).connections() == 0, "the removed relay's kept connection is closed");
        assertTrue(relays.get(1).connections() > 0, "the listed relay's connection is kept");
    }

    @Test
    void aTransferUnderWayKeepsARemovedRelayUntilItEnds() throws Exception {
        writeConfig(relay(0), relay(1));
        hangUp("reloaded", 1);
        try (ControlConnection c = login()) {
            c.send("FSPO block-size=4k").assertCode(200);
            c.socket().setReceiveBufferSize(4096);
            c.sendLine("FRET large.bin");
            // Read up to the first block's announcement, then nothing: striping waits for the client to read
            // (8 MiB in 4 KiB blocks: about twice the announcements the buffers hold), so it is under way.
            List<String> announced = new ArrayList<>();
            while (Fret.of(announced).blocks().isEmpty()) {
                Reply r = c.readReply();
                assertTrue(r.code() < 200, "FRET ended early: " + r + "\n" + transcript + "\n" + server.output());
                announced.addAll(announcements(r));
            }
            assertEquals(ports(0, 1), relayPorts(announced));

            writeConfig(relay(1));
            hangUp("reloaded", 2);
            assertTrue(relays.get(0).connections() > 0, "the transfer's connection to the removed relay stays open");

            Reply end = readToEnd(c, announced);
            assertEquals(226, end.code(), end + "\n" + server.output());
            assertEquals(2048, Fret.of(announced).blocks().size(), "every block placed");
        }
        await(() -> relays.get(0).connections() == 0, "the removed relay's connection is closed after the transfer");
        assertEquals(ports(1), announcedRelayPorts());
    }

    /** Who may evacuate is revocable at once: a retain-user line removed on SIGHUP refuses that user's next retain. */
    @Test
    void aRetainUserLineRemovedOnSighupRefusesTheNextRetention() throws Exception {
        writeConfig(relay(0), "retain-user = " + USER + "=30d");
        hangUp("reloaded", 1);
        assertTrue(server.output().contains("1 retain-user line(s)"), server.output());
        try (ControlConnection c = login()) {
            c.send("FSPO retain=2h").assertCode(200);
        }
        writeConfig(relay(0));
        hangUp("reloaded", 2);
        try (ControlConnection c = login()) {
            Reply r = c.send("FSPO retain=2h");
            assertEquals(550, r.code(), r.toString());
            assertTrue(r.toString().contains("may not retain"), r.toString());
        }
    }

    private String relay(int i) {
        FspRelay r = relays.get(i);
        return "relay = 127.0.0.1:" + r.address().getPort() + "=" + r.fingerprint();
    }

    private TreeSet<Integer> ports(int... indexes) {
        TreeSet<Integer> ports = new TreeSet<>();
        for (int i : indexes) {
            ports.add(relays.get(i).address().getPort());
        }
        return ports;
    }

    private void writeConfig(String... relayLines) throws Exception {
        List<String> lines = new ArrayList<>(List.of("listen = 127.0.0.1:0", "root = root", "user = " + USER + ":" + PASSWORD,
                "state-dir = state", "allow-plain-login = true", "fsp-without-tls = true", "login-failure-delay = 0s"));
        lines.addAll(List.of(relayLines));
        Path next = dir.resolve("server.conf.new");
        Files.write(next, lines);
        Files.move(next, config, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** {@code kill -HUP} to the server, then waits for its {@code count}th log line containing {@code logged}. */
    private void hangUp(String logged, int count) throws Exception {
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(server.pid())).inheritIO().start();
        assertEquals(0, kill.waitFor());
        await(() -> server.output().split(java.util.regex.Pattern.quote(logged), -1).length - 1 >= count,
                "log line '" + logged + "' #" + count);
        assertTrue(server.isAlive(), server.output());
    }

    private ControlConnection login() throws Exception {
        return ControlConnection.login(server.ipv4(), USER, PASSWORD, transcript);
    }

    /** The ports of the relays a FRET of a small file announces (its transfer runs to its end). */
    private TreeSet<Integer> announcedRelayPorts() throws Exception {
        try (ControlConnection c = login()) {
            c.sendLine("FRET small.bin");
            List<String> announced = new ArrayList<>();
            Reply end = readToEnd(c, announced);
            assertEquals(226, end.code(), end + "\n" + transcript + "\n" + server.output());
            return relayPorts(announced);
        }
    }

    private static Reply readToEnd(ControlConnection c, List<String> announced) throws Exception {
        while (true) {
            Reply r = c.readReply();
            if (r.code() >= 200) {
                return r;
            }
            announced.addAll(announcements(r));
        }
    }

    /** The announcements a reply to FRET carries (without {@code 151 }): none in its 150. */
    private static List<String> announcements(Reply r) {
        return r.code() == 151 ? r.lines().stream().map(l -> l.substring(4)).toList() : List.of();
    }

    /** The ports of the relays announced. */
    private static TreeSet<Integer> relayPorts(List<String> announced) throws IOException {
        TreeSet<Integer> ports = new TreeSet<>();
        Fret.of(announced).relays().forEach(r -> ports.add(r.port()));
        return ports;
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for: " + what);
            Thread.sleep(50);
        }
    }
}

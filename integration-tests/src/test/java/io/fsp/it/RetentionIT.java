package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.control.ControlChannel;
import io.fsp.client.control.Reply;
import io.fsp.it.harness.AnnouncedRelays;
import io.fsp.it.harness.Fret;
import io.fsp.it.harness.RelayProcess;
import io.fsp.it.harness.ServerProcess;
import io.fsp.it.harness.TreeDigests;
import io.fsp.metrics.Scrape;
import io.fsp.tls.Certificates;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.KeyMaterial;
import io.fsp.tls.PinnedTrustManager;
import io.netty.buffer.ByteBuf;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention holds relay space for weeks, so it is judged by who asks and follows use (docs/protocol.md §1
 * "Evacuation", §3.3 "Space follows use"). Real processes: an fsp-server that lets anonymous users in and grants
 * {@code retain-user alice=1h} only, and two fsp-relays whose reservations are read from their metrics. An anonymous
 * user, a user without the right and one asking beyond hers are refused at FSPO with nothing reserved; after an
 * evacuation's 226 each relay reserves exactly what it holds, and nothing once the collector confirmed every block;
 * a FRET whose client leaves while it is planned is aborted at its relays; a relay bounds one server's retained space;
 * a second relay on a running one's store is refused before it touches the retained blocks there.
 */
@Timeout(180)
class RetentionIT {
    private static final String ALICE = "alice";
    private static final String BOB = "bob";
    private static final String PASSWORD = "retention-secret";

    @TempDir
    Path dir;

    private final List<RelayProcess> relays = new ArrayList<>();
    private final List<InetSocketAddress> metrics = new ArrayList<>();
    private ServerProcess server;
    private Fingerprint serverFingerprint;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        relays.forEach(RelayProcess::close);
    }

    /** The server, and one relay per entry of {@code relayOptions} (its extra options), each with metrics. */
    private void start(List<List<String>> relayOptions) throws Exception {
        Path state = Files.createDirectories(dir.resolve("server-state"));
        KeyMaterial key = Certificates.selfSigned("fsp-server");
        Certificates.write(key, state.resolve("server-cert.pem"), state.resolve("server-key.pem"));
        serverFingerprint = key.fingerprint();
        Path root = Files.createDirectories(dir.resolve("root"));
        List<String> args = new ArrayList<>(List.of("--listen", "127.0.0.1:0", "--root", root.toString(),
                "--user", ALICE, "--user", BOB, "--anonymous", "--retain-user", ALICE + "=1h",
                "--state-dir", state.toString(), "--login-failure-delay", "0s"));
        for (int i = 0; i < relayOptions.size(); i++) {
            InetSocketAddress m = new InetSocketAddress("127.0.0.1", freePort());
            List<String> options = new ArrayList<>(List.of("--quota", "64M", "--metrics", "127.0.0.1:" + m.getPort()));
            options.addAll(relayOptions.get(i));
            RelayProcess r = RelayProcess.start(dir.resolve("relay" + i), key.fingerprint(), options.toArray(String[]::new));
            relays.add(r);
            metrics.add(m);
            args.add("--relay");
            args.add("127.0.0.1:" + r.address().getPort() + "=" + r.fingerprint());
        }
        server = ServerProcess.start(root, args, 1, Map.of("FSP_PASSWORD_ALICE", PASSWORD, "FSP_PASSWORD_BOB", PASSWORD));
    }

    private ControlChannel login(String user) throws Exception {
        ControlChannel c = ControlChannel.connect("127.0.0.1", server.port(), PinnedTrustManager.of(Set.of(serverFingerprint)),
                Duration.ofSeconds(30));
        c.login(user, (user.equals("anonymous") ? "guest@example.org" : PASSWORD).toCharArray(), false);
        return c;
    }

    private double metric(int relay, String series) throws Exception {
        return Scrape.of(metrics.get(relay)).get(series);
    }

    private long reserved(int relay) throws Exception {
        return (long) metric(relay, "fsp_relay_store_reserved_bytes");
    }

    private long used(int relay) throws Exception {
        return (long) metric(relay, "fsp_relay_store_used_bytes");
    }

    @Test
    void onlyTheUsersTheServerNamesMayRetainAndARefusalReservesNothing() throws Exception {
        start(List.of(List.of()));
        TreeDigests.random(server.root().resolve("data.bin"), 300_000, 1);
        for (String[] asked : new String[][] {
            {"anonymous", "retain=30d", "anonymous users may not retain"},
            {BOB, "retain=1h", "user bob may not retain transfers at the relays (evacuate): the server's configuration"
                    + " has no retain-user line for it"},
            {ALICE, "retain=2h", "user alice may retain for at most 1h (retain-user)"}}) {
            try (ControlChannel c = login(asked[0])) {
                double opened = metric(0, "fsp_relay_transfers_total{event=\"opened\"}");
                Reply r = c.command("FSPO block-size=64k " + asked[1]);
                assertEquals(550, r.code(), asked[0] + ": " + r);
                assertTrue(r.text().contains(asked[2]), r.text());
                assertTrue(c.command("FSPO").text().endsWith(" retain=off"), "a refused FSPO changes nothing");
                // Nothing is asked of a relay at FSPO: its reply is the event a reservation would precede.
                assertEquals(0, reserved(0), asked[0]);
                assertEquals(opened, metric(0, "fsp_relay_transfers_total{event=\"opened\"}"), asked[0]);
                // The session serves on; its FRET is an ordinary transfer, never retained.
                List<String> lines = Fret.read(c, "/data.bin").lines();
                assertTrue(lines.get(0).endsWith(" retain=off"), lines.get(0));
                assertEquals(0, metric(0, "fsp_relay_transfers_retained"), asked[0]);
            }
            awaitEquals(0, () -> metric(0, "fsp_relay_transfers_open"), "the ordinary transfer aborted with its client");
        }
        try (ControlChannel c = login(ALICE)) {
            assertEquals(200, c.command("FSPO retain=1h").code(), "alice has the right");
        }
    }

    /**
     * After an evacuation's 226 each relay reserves what it holds (the reservation shrank from the whole plan's
     * worth); a collector that fetches and confirms every block, as fsp collect does, leaves nothing reserved.
     */
    @Test
    void anEvacuationReservesWhatItHoldsAndNothingOnceCollectedWhole() throws Exception {
        start(List.of(List.of(), List.of()));
        TreeDigests.random(server.root().resolve("data.bin"), 4 * 1024 * 1024 + 5, 2);
        Fret lines;
        try (ControlChannel c = login(ALICE)) {
            assertEquals(200, c.command("FSPO block-size=256k strategy=cyclic retain=1h").code());
            lines = Fret.read(c, "/data.bin");
        }
        long held = 0;
        for (int i = 0; i < 2; i++) {
            assertTrue(used(i) > 0, "relay " + i + " holds blocks");
            assertEquals(used(i), reserved(i), "relay " + i + ": reserved = held once the 226 came");
            assertEquals(1, metric(i, "fsp_relay_transfers_retained"));
            held += used(i);
        }
        assertTrue(held > 4 * 1024 * 1024 && held < 4 * 1024 * 1024 + 17 * 200, "the blocks and their overhead: " + held);
        // A second relay started on the store of a running one (a service and a hand-started copy) would restore its
        // retained transfer as its own and delete what it took for leftovers: it is refused, and nothing is lost.
        long usedBefore = used(0);
        java.io.IOException second = assertThrows(java.io.IOException.class,
                () -> RelayProcess.start(dir.resolve("relay0"), serverFingerprint));
        assertTrue(second.getMessage().contains(dir.resolve("relay0/store") + " is the store of a relay that runs (pid "
                + relays.get(0).pid() + "; its lock: "), second.getMessage());
        assertTrue(relays.get(0).isAlive());
        assertEquals(usedBefore, used(0));
        collectAndConfirm(lines);
        for (int i = 0; i < 2; i++) {
            int relay = i;
            awaitEquals(0, () -> reserved(relay), "relay " + i + " reserved once every block is confirmed");
            assertEquals(0, used(i));
            assertEquals(0, metric(i, "fsp_relay_transfers_retained"), "collected whole: the transfer ended");
        }
    }

    /** A client that sends FRET and leaves while the server plans it leaves nothing at the relays that opened it. */
    @Test
    void aFretAbandonedWhilePlannedIsAbortedAtItsRelays() throws Exception {
        start(List.of(List.of()));
        Path tree = Files.createDirectories(server.root().resolve("tree"));
        for (int i = 0; i < 4000; i++) { // a walk of some length: the client is gone before it ends
            Files.writeString(tree.resolve("f" + i), "x".repeat(i % 100));
        }
        TreeDigests.random(tree.resolve("big.bin"), 8 * 1024 * 1024, 3);
        try (Socket c = tlsControl()) {
            send(c, "USER " + ALICE + "\r\nPASS " + PASSWORD + "\r\nFSPO retain=1h\r\nFRET /tree\r\n");
            BufferedReader in = new BufferedReader(new InputStreamReader(c.getInputStream(), StandardCharsets.US_ASCII));
            for (String line; !(line = in.readLine()).startsWith("200 FSP"); ) {
                assertTrue(line.startsWith("331 ") || line.startsWith("230 "), line);
            }
        } // closed without QUIT once FSPO is answered: the FRET is being planned
        awaitEquals(1, () -> metric(0, "fsp_relay_transfers_total{event=\"aborted\"}"),
                "the relay is told to abort the transfer it opened for the client that left\n" + server.output());
        assertEquals(0, reserved(0));
        assertEquals(0, used(0));
        assertEquals(0, metric(0, "fsp_relay_transfers_retained"));
        assertTrue(server.output().contains("its client left while it was planned; aborting it at 1 relays"),
                server.output());
    }

    /**
     * A relay bounds what one server's retained transfers reserve (--server-retained-space): an evacuation that
     * would need more is refused there (NO_SPACE) and placed on the other relay; an ordinary transfer still uses it.
     */
    @Test
    void aRelayBoundsTheSpaceOneServersRetainedTransfersReserve() throws Exception {
        start(List.of(List.of("--server-retained-space", "1M"), List.of()));
        TreeDigests.random(server.root().resolve("data.bin"), 2 * 1024 * 1024, 4);
        try (ControlChannel c = login(ALICE)) {
            assertEquals(200, c.command("FSPO block-size=256k retain=1h").code());
            Fret evacuation = Fret.read(c, "/data.bin");
            assertEquals(1, metric(0, "fsp_relay_errors_total{code=\"NO_SPACE\"}"), "the bounded relay refused it");
            assertEquals(0, reserved(0));
            assertEquals(0, metric(0, "fsp_relay_transfers_retained"));
            assertEquals(1, evacuation.relays().size(), evacuation.toString());
            assertTrue(evacuation.blocks().stream().allMatch(b -> Fret.holders(b).equals(List.of(1))),
                    "every block on the other relay: " + evacuation);
            assertEquals(reserved(1), used(1));

            assertEquals(200, c.command("FSPO retain=off").code());
            Fret ordinary = Fret.read(c, "/data.bin");
            assertEquals(2, ordinary.relays().size(), "not bounded: " + ordinary);
        }
    }

    // ---------------------------------------------------------------- helpers

    /** A control connection after AUTH TLS, on which the test writes raw lines and which it closes without QUIT. */
    private Socket tlsControl() throws Exception {
        Socket plain = new Socket("127.0.0.1", server.port());
        BufferedReader in = new BufferedReader(new InputStreamReader(plain.getInputStream(), StandardCharsets.US_ASCII));
        assertTrue(in.readLine().startsWith("220"));
        send(plain, "AUTH TLS\r\n");
        assertTrue(in.readLine().startsWith("234"));
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, new TrustManager[] {PinnedTrustManager.of(Set.of(serverFingerprint))}, null);
        SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket(plain, "127.0.0.1", server.port(), true);
        s.startHandshake();
        return s;
    }

    private static void send(Socket s, String lines) throws Exception {
        s.getOutputStream().write(lines.getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
    }

    /** Fetches every announced block from its relay with the token and confirms it there, as fsp collect does. */
    private static void collectAndConfirm(Fret fret) throws Exception {
        AnnouncedRelays.visit(fret, (relay, c, id) -> {
            List<Long> seqs = fret.blocksOn(relay);
            for (long seq : seqs) {
                ByteBuf block = c.getBlock(id, seq).get(10, TimeUnit.SECONDS);
                block.release();
            }
            assertEquals((long) seqs.size(), c.confirm(id, seqs).get(10, TimeUnit.SECONDS));
        });
    }

    /** Waits for the value to become {@code expected} (the event), at most 30 s, then asserts it. */
    private static void awaitEquals(double expected, ThrowingSupplier value, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (value.get() != expected && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(expected, value.get(), what);
    }

    private interface ThrowingSupplier {
        double get() throws Exception;
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}

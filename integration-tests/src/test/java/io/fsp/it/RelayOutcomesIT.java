package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.control.ControlChannel;
import io.fsp.client.control.FspConversation;
import io.fsp.client.control.Reply;
import io.fsp.extension.Announcement;
import io.fsp.it.harness.RelayProcess;
import io.fsp.it.harness.ServerProcess;
import io.fsp.it.harness.TreeDigests;
import io.fsp.metrics.Scrape;
import io.fsp.tls.Certificates;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.KeyMaterial;
import io.fsp.tls.PinnedTrustManager;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What each relay said of an evacuation reaches its client (docs/protocol.md §1, FSP extension): real fsp-server and
 * fsp-relay processes. A relay whose --max-retain is shorter than the retention is REFUSED RETENTION_TOO_LONG, one that
 * is down REFUSED UNREACHABLE, one with a small --transfer-space has SPACE below what was declared and is STOPPED
 * NO_SPACE once full; with two copies asked and a relay that fills up, every block still gets two while a third relay
 * has room, and the 226 counts the blocks short of copies when none has; a probe (a dry run)
 * is opened and pushed as the evacuation would be and leaves nothing at the relays.
 */
@Timeout(180)
class RelayOutcomesIT {
    private static final String ALICE = "alice";
    private static final String PASSWORD = "outcomes-secret";
    private static final int DATA = 2 * 1024 * 1024;

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

    @Test
    void everyRelayLeftOutOrStoppedIsNamedWithItsReason() throws Exception {
        int down = freePort();
        start(List.of(List.of("--max-retain", "30m"), List.of("--transfer-space", "256K"), List.of()), down);
        List<Announcement> lines = evacuate("FSPO block-size=64k retain=1h", null);

        int opening = firstIndexOf(lines, Announcement.Directory.class, Announcement.File.class);
        List<Announcement> head = lines.subList(0, opening);
        Announcement.Refused tooLong = refusedAt(head, relays.get(0).address().getPort());
        assertEquals("RETENTION_TOO_LONG", tooLong.reason());
        assertTrue(tooLong.text().endsWith("this relay retains transfers for at most 30m (--max-retain)"), tooLong.text());
        Announcement.Refused unreachable = refusedAt(head, down);
        assertEquals("UNREACHABLE", unreachable.reason(), unreachable.toString());

        // RELAY indices follow the server's --relay list: 1 is the small one, 2 the ordinary one
        Announcement.Space small = space(head, 1);
        assertEquals(256 * 1024, small.reserved());
        assertTrue(small.declared() > DATA, small.toString());
        Announcement.Space ordinary = space(head, 2);
        assertEquals(ordinary.declared(), ordinary.reserved(), "the whole declared space fits: " + ordinary);

        List<Announcement.Stopped> stopped = lines.stream().filter(a -> a instanceof Announcement.Stopped)
                .map(a -> (Announcement.Stopped) a).toList();
        assertEquals(1, stopped.size(), "once for the small relay: " + stopped);
        assertEquals(1, stopped.get(0).index());
        assertEquals("NO_SPACE", stopped.get(0).reason());
        assertTrue(blocks(lines).stream().allMatch(b -> b.placement() instanceof Announcement.Placement.Relays),
                "every block on a relay: " + lines);
    }

    @Test
    void twoCopiesAreKeptWhenOneOfThreeRelaysFillsUp() throws Exception {
        start(List.of(List.of(), List.of("--transfer-space", "256K"), List.of()), 0);
        StringBuilder done = new StringBuilder();
        List<Announcement> lines = evacuate("FSPO block-size=64k replicas=2 retain=1h", done);
        assertEquals("NO_SPACE", lines.stream().filter(a -> a instanceof Announcement.Stopped s && s.index() == 1)
                .map(a -> ((Announcement.Stopped) a).reason()).findFirst().orElse("none"), "the small relay fills up");
        for (Announcement.Block b : blocks(lines)) {
            Announcement.Placement.Relays on = (Announcement.Placement.Relays) b.placement();
            assertEquals(2, Set.copyOf(on.holders()).size(), "block " + b.seq() + " on two relays: " + on);
        }
        assertFalse(done.toString().contains("fewer than"), done.toString());
    }

    @Test
    void theEndSaysHowManyBlocksAreShortOfCopiesWhenNoOtherRelayCanTakeOne() throws Exception {
        start(List.of(List.of(), List.of("--transfer-space", "256K")), 0);
        StringBuilder done = new StringBuilder();
        List<Announcement> lines = evacuate("FSPO block-size=64k replicas=2 retain=1h", done);
        long single = blocks(lines).stream()
                .filter(b -> ((Announcement.Placement.Relays) b.placement()).holders().size() == 1).count();
        assertTrue(single > 0, "the small relay filled up: " + lines);
        assertTrue(done.toString().endsWith("; " + single + (single == 1 ? " block" : " blocks")
                + " with fewer than 2 copies"), done.toString());
    }

    @Test
    void aProbeIsOpenedAndPushedAsTheEvacuationAndLeavesNothing() throws Exception {
        start(List.of(List.of("--max-retain", "30m"), List.of()), 0);
        try (ControlChannel c = login()) {
            Reply alone = c.command("FSPO probe=on");
            assertEquals(501, alone.code(), alone.toString());
            assertTrue(alone.text().contains("probe: on (expected: only with retain=DURATION"), alone.text());
        }
        List<Announcement> lines = evacuate("FSPO block-size=64k probe=on retain=1h", null);
        assertEquals("RETENTION_TOO_LONG", refusedAt(lines, relays.get(0).address().getPort()).reason());
        assertTrue(blocks(lines).stream().allMatch(b -> b.placement() instanceof Announcement.Placement.Relays));
        awaitEquals(1, () -> metric(1, "fsp_relay_transfers_total{event=\"aborted\"}"), "the probe is aborted");
        assertEquals(0, metric(1, "fsp_relay_store_reserved_bytes"));
        assertEquals(0, metric(1, "fsp_relay_store_used_bytes"));
        assertEquals(0, metric(1, "fsp_relay_transfers_retained"));
    }

    // ---------------------------------------------------------------- helpers

    /**
     * The server, granting alice an hour of retention, and one relay per entry of {@code relayOptions}; with
     * {@code downPort} > 0 also a relay at that port that never runs, named last.
     */
    private void start(List<List<String>> relayOptions, int downPort) throws Exception {
        Path state = Files.createDirectories(dir.resolve("server-state"));
        KeyMaterial key = Certificates.selfSigned("fsp-server");
        Certificates.write(key, state.resolve("server-cert.pem"), state.resolve("server-key.pem"));
        serverFingerprint = key.fingerprint();
        Path root = Files.createDirectories(dir.resolve("root"));
        List<String> args = new ArrayList<>(List.of("--listen", "127.0.0.1:0", "--root", root.toString(),
                "--user", ALICE, "--retain-user", ALICE + "=1h", "--state-dir", state.toString(),
                "--login-failure-delay", "0s"));
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
        if (downPort > 0) {
            args.add("--relay");
            args.add("127.0.0.1:" + downPort + "=" + Certificates.selfSigned("gone").fingerprint());
        }
        server = ServerProcess.start(root, args, 1, Map.of("FSP_PASSWORD_ALICE", PASSWORD));
        TreeDigests.random(root.resolve("data.bin"), DATA, 7);
    }

    private ControlChannel login() throws Exception {
        ControlChannel c = ControlChannel.connect("127.0.0.1", server.port(), PinnedTrustManager.of(Set.of(serverFingerprint)),
                Duration.ofSeconds(30));
        c.login(ALICE, PASSWORD.toCharArray(), false);
        return c;
    }

    /** FSPO {@code fspo}, then FRET of the data: its announcements, read with the client's parser; the 226 into {@code done}. */
    private List<Announcement> evacuate(String fspo, StringBuilder done) throws Exception {
        try (ControlChannel c = login()) {
            Reply set = c.command(fspo);
            assertEquals(200, set.code(), set.toString());
            ControlChannel.expect(c.command("FRET /data.bin"), 150, "FRET");
            List<Announcement> lines = new ArrayList<>();
            Reply r;
            while ((r = c.read()).code() == 151) {
                if (!r.text().startsWith("SIG ")) { // an evacuation's signatures: not what this test reads
                    lines.add(FspConversation.parse(r.text()));
                }
            }
            ControlChannel.expect(r, 226, "FRET");
            if (done != null) {
                done.append(r.text());
            }
            return lines;
        }
    }

    @SafeVarargs
    private static int firstIndexOf(List<Announcement> lines, Class<? extends Announcement>... kinds) {
        for (int i = 0; i < lines.size(); i++) {
            for (Class<? extends Announcement> k : kinds) {
                if (k.isInstance(lines.get(i))) {
                    return i;
                }
            }
        }
        return lines.size();
    }

    private static Announcement.Refused refusedAt(List<Announcement> lines, int port) {
        return lines.stream().filter(a -> a instanceof Announcement.Refused r && r.port() == port)
                .map(a -> (Announcement.Refused) a).findFirst()
                .orElseThrow(() -> new AssertionError("no REFUSED line for port " + port + ": " + lines));
    }

    private static Announcement.Space space(List<Announcement> lines, int index) {
        return lines.stream().filter(a -> a instanceof Announcement.Space s && s.index() == index)
                .map(a -> (Announcement.Space) a).findFirst()
                .orElseThrow(() -> new AssertionError("no SPACE line for relay " + index + ": " + lines));
    }

    private static List<Announcement.Block> blocks(List<Announcement> lines) {
        return lines.stream().filter(a -> a instanceof Announcement.Block).map(a -> (Announcement.Block) a).toList();
    }

    private double metric(int relay, String series) throws Exception {
        return Scrape.of(metrics.get(relay)).get(series);
    }

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

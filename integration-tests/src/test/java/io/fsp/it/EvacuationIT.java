package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.control.ControlChannel;
import io.fsp.client.control.Reply;
import io.fsp.config.ConfigSource;
import io.fsp.extension.Announcement;
import io.fsp.it.harness.AnnouncedRelays;
import io.fsp.it.harness.Fret;
import io.fsp.it.harness.RecordingRelay;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import io.fsp.relay.FspRelay;
import io.fsp.relaylink.wire.RelayMessage;
import io.fsp.server.FspServer;
import io.fsp.server.config.ServerConfig;
import io.fsp.server.config.ServerSettings;
import io.fsp.testkit.relay.Fault;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TransferId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's side of an evacuation (FSPO retain, docs/protocol.md §1): relays opened retained until the
 * retention ends, a token that lives as long, placed blocks that stay at the relays when the client's control
 * connection closes (a normal transfer's are aborted) in a reservation shrunk to what each relay holds once
 * striping stops, a relay out of space that gets no more blocks, the
 * order FPRI gives the files and their blocks, and the options an evacuation refuses. Real server, real relays
 * ({@link StripeRig}); where the relay's view is what is checked (the retain flag, aborts, NO_SPACE), relays that
 * record what the server asks ({@link RecordingRelay}).
 */
class EvacuationIT {
    private static final Fault[] HONEST = {};

    @TempDir
    Path dir;

    @Test
    void anEvacuationsTransferAndTokenExpireWhenItsRetentionEnds() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, HONEST, HONEST, HONEST);
             ControlChannel c = control(rig.port(), rig.server().fingerprint(), "block-size=64k retain=2h")) {
            TreeDigests.random(rig.root().resolve("data.bin"), 1 << 20, 1);
            Instant before = Instant.now();
            Fret fret = Fret.read(c, "/data.bin");
            Instant after = Instant.now();
            assertTrue(fret.lines().get(0).endsWith(" retain=2h"), fret.lines().get(0));
            CapabilityToken token = fret.token();
            assertBetween(token.expiresAt(), before.plus(Duration.ofHours(2)), after.plus(Duration.ofHours(2)), "token");
            TransferId id = fret.id();
            for (FspRelay r : rig.relays()) {
                assertEquals(token.expiresAt().toEpochMilli(), r.store().status(id).orElseThrow().expiresAt().toEpochMilli(),
                        "the relay keeps the transfer until the token's expiry");
            }
            // the same session without retain: a transfer of the usual hour
            ControlChannel.expect(c.command("FSPO retain=off"), 200, "FSPO");
            Instant plain = Instant.now();
            CapabilityToken hour = Fret.read(c, "/data.bin").token();
            assertBetween(hour.expiresAt(), plain.plus(Duration.ofMinutes(59)), Instant.now().plus(Duration.ofHours(1)), "token");
        }
    }

    /**
     * A client that leaves after the 226 leaves an evacuation's blocks at the relays (their STATUS, asked with the
     * token as the collector will, still counts every block), while a normal transfer's are aborted.
     */
    @Test
    void closingTheControlConnectionAfterThe226LeavesAnEvacuationAtTheRelays() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, HONEST, HONEST, HONEST)) {
            TreeDigests.random(rig.root().resolve("data.bin"), 4 << 20, 2);
            Fret evacuation;
            try (ControlChannel c = control(rig.port(), rig.server().fingerprint(), "block-size=64k retain=1h")) {
                evacuation = Fret.read(c, "/data.bin");
            }
            TransferId normal;
            try (ControlChannel c = control(rig.port(), rig.server().fingerprint(), "block-size=64k")) {
                normal = Fret.read(c, "/data.bin").id();
                assertTrue(heldAt(rig, normal) > 4 << 20, "the normal transfer's blocks are at the relays");
            }
            awaitEquals(0, () -> heldAt(rig, normal), "the normal transfer is aborted once its client has gone");
            Map<Integer, Long> announcedPerRelay = blocksPerRelay(evacuation);
            assertEquals(64, announcedPerRelay.values().stream().mapToLong(Long::longValue).sum(), evacuation.toString());
            assertEquals(announcedPerRelay, statusPerRelay(evacuation), "every placed block is still at its relay");
            TransferId id = evacuation.id();
            for (FspRelay r : rig.relays()) {
                r.store().status(id).ifPresent(t -> assertEquals(t.bytes(), t.reservation(),
                        "after the 226 a relay reserves what it holds of the evacuation"));
                assertEquals(r.store().used(), r.store().reserved(), "and nothing else: the normal transfer is gone");
            }
        }
    }

    /**
     * A finished evacuation ends at the relays that hold none of its blocks (replicas count), so it does not keep
     * their reservation for the whole retention; the relays that hold its blocks keep reserved only what they hold.
     */
    @Test
    void aFinishedEvacuationReleasesTheRelaysThatHoldNoneOfItsBlocks() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, HONEST, HONEST, HONEST)) {
            TreeDigests.random(rig.root().resolve("one-block.bin"), 10_000, 4);
            for (int replicas = 1; replicas <= 2; replicas++) {
                Fret lines;
                try (ControlChannel c = control(rig.port(), rig.server().fingerprint(),
                        "block-size=64k retain=1h replicas=" + replicas)) {
                    lines = Fret.read(c, "/one-block.bin");
                }
                TransferId id = lines.id();
                Map<Integer, Long> holding = blocksPerRelay(lines);
                assertEquals(replicas, holding.size(), lines.toString());
                awaitEquals(replicas, () -> rig.relays().stream().filter(r -> r.store().status(id).isPresent()).count(),
                        "relays that keep the evacuation (replicas " + replicas + ")");
                rig.relays().forEach(r -> r.store().status(id).ifPresent(t -> {
                    assertEquals(1, t.blocks(), "a keeping relay holds the block");
                    assertEquals(t.bytes(), t.reservation(), "and reserves that block, not the plan's worth");
                }));
                assertEquals(rig.relays().stream().mapToLong(r -> r.store().used()).sum(),
                        rig.relays().stream().mapToLong(r -> r.store().reserved()).sum(), "nothing reserved beyond what is held");
            }
        }
    }

    /**
     * A client that leaves mid-evacuation stops the striping (nothing more is read or pushed) and what was placed
     * stays, each relay finished: reserving what it holds and taking no new block; a normal transfer left the same
     * way is aborted.
     */
    @Test
    void closingTheControlConnectionMidEvacuationStopsStripingAndKeepsWhatWasPlaced() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, HONEST, HONEST, HONEST)) {
            TreeDigests.random(rig.root().resolve("big.bin"), 16 << 20, 3); // 4096 blocks of 4 KiB
            Fret read = leaveAfter20Blocks(rig, "block-size=4k retain=1h");
            TransferId evacuation = read.id();
            // The event: every relay that keeps the evacuation was finished (reserves what it holds, takes no more).
            awaitEquals(0, () -> rig.relays().stream().filter(r -> r.store().status(evacuation)
                    .filter(t -> t.reservation() != t.bytes()).isPresent()).count(), "relays not yet finished");
            long kept = blocksAt(rig, evacuation);
            assertTrue(kept >= 20 && kept < 4096, "striping stopped with " + kept + " of 4096 blocks placed");
            assertEquals(heldAt(rig, evacuation), rig.relays().stream().mapToLong(r -> r.store().reserved()).sum(),
                    "reserved: what the relays hold, not the rest of the plan");

            TransferId normal = leaveAfter20Blocks(rig, "block-size=4k").id();
            awaitEquals(0, () -> heldAt(rig, normal), "a normal transfer left mid-way is aborted");
            assertEquals(kept, statusPerRelay(read).values().stream().mapToLong(Long::longValue).sum(),
                    "the relays' STATUS, asked with the token, counts every block placed before the client left");
        }
    }

    /**
     * FPRI names files and directories to send first: the FILE lines and the block numbers follow that order
     * (a plain FRET here; an evacuation orders the same way). The next FRET consumes them.
     */
    @Test
    void fpriPutsTheNamedFilesAndTheirBlocksFirst() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, HONEST, HONEST);
             ControlChannel c = control(rig.port(), rig.server().fingerprint(), "block-size=4k")) {
            for (String name : List.of("a.txt", "b/x.txt", "b/y.txt", "c d.txt", "e.txt")) {
                Files.createDirectories(rig.root().resolve("tree").resolve(name).getParent());
                TreeDigests.random(rig.root().resolve("tree").resolve(name), 10_000, name.length()); // 3 blocks each
            }
            assertTrue(c.command("FEAT").lines().stream().anyMatch(l -> l.strip().equals("FSP FSPO;FRET;FGET;FHAV;FPRI;FCOL")),
                    "FEAT lists FPRI");
            for (String bad : List.of("FPRI", "FPRI %2Fa.txt", "FPRI b%2F..%2Fa.txt", "FPRI c d.txt", "FPRI b/x.txt",
                    "FPRI " + "x".repeat(4097))) {
                Reply r = c.command(bad);
                assertEquals(501, r.code(), bad + ": " + r);
                assertTrue(r.text().contains("expected"), r.text());
            }
            for (String name : List.of("e.txt", "nothing.txt", "b", "c%20d.txt")) {
                assertEquals(200, c.command("FPRI " + name).code(), name);
            }
            Fret lines = Fret.read(c, "/tree");
            assertEquals(List.of("e.txt", "b/x.txt", "b/y.txt", "c d.txt", "a.txt"), fileNames(lines));
            Map<Long, Integer> fileOfBlock = new HashMap<>();
            lines.blocks().forEach(b -> fileOfBlock.put(b.seq(), b.file()));
            assertEquals(15, fileOfBlock.size());
            fileOfBlock.forEach((seq, file) -> assertEquals((int) (seq / 3), file, "block " + seq + " of file " + file));
            assertEquals(List.of("a.txt", "b/x.txt", "b/y.txt", "c d.txt", "e.txt"), fileNames(Fret.read(c, "/tree")),
                    "the next FRET is in name order: the priorities were consumed");
        }
    }

    @Test
    void anEvacuationNeedsRelaysAndNoDataConnectionAndARetentionInRange() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, HONEST);
             ControlChannel c = control(rig.port(), rig.server().fingerprint(), "retain=1h include-direct=on")) {
            TreeDigests.random(rig.root().resolve("data.bin"), 100_000, 4);
            c.epsv();
            Reply r = c.command("FRET /data.bin");
            assertEquals(501, r.code(), r.toString());
            assertTrue(r.text().contains("needs include-direct=off"), r.text());
            ControlChannel.expect(c.command("FSPO include-direct=off use-relays=off"), 200, "FSPO");
            r = c.command("FRET /data.bin");
            assertEquals(501, r.code(), r.toString());
            assertTrue(r.text().contains("needs use-relays=on"), r.text());
            assertEquals("retain: 31d (expected: off or 1m..30d, the server's max-retain)", c.command("FSPO retain=31d").text());
            assertEquals("retain: 59s (expected: off or at least 1m)", c.command("FSPO retain=59s").text());
            assertEquals(501, c.command("FSPO use-relays=on retain=7w").code());
            String shown = c.command("FSPO").text();
            assertTrue(shown.contains(" use-relays=off ") && shown.endsWith(" retain=1h"), "a refused FSPO changes nothing: " + shown);
            assertEquals(0, rig.relays().get(0).store().used(), "nothing was sent to the relay");
            assertEquals(0, rig.relays().get(0).store().reserved(), "nor reserved there");
            assertEquals(200, c.command("NOOP").code(), "the session serves on");
        }
    }

    /**
     * What the relays are asked, seen from the relays: an evacuation is opened retained with the token's expiry
     * (a normal transfer is not); a relay that refuses a block with NO_SPACE gets no more blocks of that transfer,
     * which go to the other relay, and keeps its connection for the next transfer; a client that leaves makes the
     * server abort its normal transfer at the relays, never its evacuation.
     */
    @Test
    void relaysOpenAnEvacuationRetainedAndOneOutOfSpaceGetsNoMoreOfItsBlocks() throws Exception {
        try (RecordingRelay full = RecordingRelay.start(3); RecordingRelay roomy = RecordingRelay.start(Integer.MAX_VALUE);
             FspServer server = server(List.of(full.spec(), roomy.spec()), true)) { // it speaks TLS only
            TreeDigests.random(dir.resolve("root").resolve("data.bin"), 40 * 4096, 5);
            TransferId evacuation;
            TransferId normal;
            try (ControlChannel c = control(server.addresses().get(0).getPort(), server.fingerprint(),
                    "block-size=4k strategy=cyclic retain=1h")) {
                Fret lines = Fret.read(c, "/data.bin");
                evacuation = lines.id();
                CapabilityToken token = lines.token();
                for (RecordingRelay r : List.of(full, roomy)) {
                    RelayMessage.OpenTransfer o = r.opened().get(0);
                    assertEquals(evacuation, o.transferId());
                    assertTrue(o.retained(), "opened retained");
                    assertEquals(token.expiresAt().toEpochMilli(), o.expiresAt().toEpochMilli(), "until the token's expiry");
                }
                assertEquals(3, full.stored(evacuation).size());
                assertFalse(full.refused(evacuation).isEmpty(), "the relay refused a block");
                assertEquals(List.of(evacuation), full.finished(), "finished at the 226: it keeps what it holds");
                assertEquals(List.of(evacuation), roomy.finished());
                Map<Integer, Long> placed = blocksPerRelay(lines);
                assertEquals(Map.of(0, 3L, 1, 37L), placed, "no block on the full relay after it refused one, none at the origin");
                for (long seq : full.refused(evacuation)) {
                    assertTrue(lines.blocksOn(1).contains(seq) && !lines.blocksOn(0).contains(seq),
                            "refused block " + seq + " placed on the other relay: " + lines);
                }
                // A connection given up would show as a new one for the next transfer: the check comes after it.
                int connections = full.connections();

                ControlChannel.expect(c.command("FSPO retain=off"), 200, "FSPO");
                normal = Fret.read(c, "/data.bin").id();
                RelayMessage.OpenTransfer o = full.opened().get(1);
                assertEquals(normal, o.transferId());
                assertFalse(o.retained(), "a normal transfer is not retained");
                assertEquals(3, full.stored(normal).size(), "the full relay serves the next transfer");
                assertEquals(connections, full.connections(), "on the connection it kept");
                assertEquals(connections, full.openConnections(), "the full relay's connection is kept");
            }
            awaitEquals(1, () -> full.aborted().size(), "the normal transfer is aborted once its client has gone");
            awaitEquals(1, () -> roomy.aborted().size(), "at both relays");
            assertEquals(List.of(normal), full.aborted());
            assertEquals(List.of(normal), roomy.aborted(), "the evacuation is never aborted");
        }
    }

    // ---------------------------------------------------------------- helpers

    /** A server whose relay list is {@code relays}, with one user whose root is {@code dir/root}. */
    private FspServer server(List<String> relays) throws Exception {
        return server(relays, false);
    }

    private FspServer server(List<String> relays, boolean blocksOverTls) throws Exception {
        Path root = Files.createDirectories(dir.resolve("root"));
        Map<String, List<String>> settings = new LinkedHashMap<>();
        settings.put("listen", List.of("127.0.0.1:0"));
        settings.put("root", List.of(root.toString()));
        settings.put("user", List.of(StripeRig.USER + ":" + StripeRig.PASSWORD));
        settings.put("state-dir", List.of(Files.createDirectories(dir.resolve("server-state")).toString()));
        settings.put("relay", relays);
        settings.put("login-failure-delay", List.of("0s"));
        settings.put("retain-user", List.of(StripeRig.USER + "=30d"));
        settings.put("relay-blocks-over-tls", List.of(String.valueOf(blocksOverTls)));
        return FspServer.start(ServerSettings.ALL.load(ConfigSource.of("test", settings)));
    }

    /** A logged-in control connection with FSPO {@code options} set. */
    private static ControlChannel control(int port, Fingerprint server, String options) throws Exception {
        ControlChannel c = ControlChannel.connect("127.0.0.1", port, PinnedTrustManager.of(Set.of(server)), Duration.ofSeconds(10));
        c.login(StripeRig.USER, StripeRig.PASSWORD.toCharArray(), false);
        ControlChannel.expect(c.command("FSPO " + options), 200, "FSPO");
        return c;
    }

    /** Starts FRET /big.bin with {@code options}, reads up to the 20th BLK line and leaves; the lines read. */
    private static Fret leaveAfter20Blocks(StripeRig rig, String options) throws Exception {
        try (ControlChannel c = control(rig.port(), rig.server().fingerprint(), options)) {
            return Fret.readBlocks(c, "/big.bin", 20);
        }
    }

    private static List<String> fileNames(Fret fret) {
        return fret.all(Announcement.File.class).stream().map(Announcement.File::name).toList();
    }

    /** How many blocks each relay index holds (replicas counted on each of their relays). */
    private static Map<Integer, Long> blocksPerRelay(Fret fret) {
        Map<Integer, Long> n = new HashMap<>();
        fret.blocks().forEach(b -> Fret.holders(b).forEach(i -> n.merge(i, 1L, Long::sum)));
        return n;
    }

    /** Each relay's STATUS of the transfer, asked as a collector asks: over TLS, with the announced token. */
    private static Map<Integer, Long> statusPerRelay(Fret fret) throws Exception {
        Map<Integer, Long> n = new HashMap<>();
        AnnouncedRelays.visit(fret, (relay, c, id) -> n.put(relay, c.status(id).get(10, TimeUnit.SECONDS).blocks()));
        return n;
    }

    private static long heldAt(StripeRig rig, TransferId id) {
        return rig.relays().stream().mapToLong(r -> r.store().status(id).map(t -> t.bytes()).orElse(0L)).sum();
    }

    private static long blocksAt(StripeRig rig, TransferId id) {
        return rig.relays().stream().mapToLong(r -> r.store().status(id).map(t -> t.blocks()).orElse(0L)).sum();
    }

    private static void awaitEquals(long expected, LongSupplier value, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (value.getAsLong() != expected && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(expected, value.getAsLong(), what);
    }

    private static void assertBetween(Instant actual, Instant from, Instant to, String what) {
        assertTrue(!actual.isBefore(from.minusSeconds(1)) && !actual.isAfter(to.plusSeconds(1)),
                what + " expires at " + actual + " (expected: " + from + " .. " + to + ")");
    }
}

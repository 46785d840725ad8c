package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.collect.CollectSummary;
import io.fsp.client.collect.Collector;
import io.fsp.client.control.ControlChannel;
import io.fsp.client.verify.VerificationMode;
import io.fsp.extension.Announcement;
import io.fsp.it.harness.Fret;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayConnectionConfig;
import io.fsp.relaylink.TokenRefusedException;
import io.fsp.testkit.relay.Fault;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.tls.SslContexts;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TransferId;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Relays that misbehave towards the client — flipped bits, tampered blocks with a recomputed wire checksum,
 * duplicated and foreign blocks, a connection that dies mid-transfer, a relay that never answers — and a
 * client that presents the token of another transfer. Every transfer must still end byte-identical, with the
 * summary saying what was recovered from where. With {@code strategy=cyclic} block {@code seq} lies on relay
 * {@code seq % 3}, so each fault hits a known block.
 */
class FaultyRelayIT {
    private static final int SIZE = 20 * 64 * 1024 + 999; // 21 blocks of 64 KiB

    @TempDir
    Path dir;

    private static Fault[] faults(Fault... f) {
        return f;
    }

    private static long sum(Map<String, Long> m) {
        return m.values().stream().mapToLong(Long::longValue).sum();
    }

    private static boolean anyCause(CollectSummary s, String source, String text) {
        return s.retries().keySet().stream().anyMatch(k -> k.startsWith(source + ": ") && k.contains(text));
    }

    private CollectSummary fetch(StripeRig rig, String... options) throws Exception {
        Path file = rig.root().resolve("data.bin");
        TreeDigests.random(file, SIZE, 11);
        Path dest = dir.resolve("copy.bin");
        List<String> all = new ArrayList<>(List.of("block-size=64k", "strategy=cyclic"));
        all.addAll(Arrays.asList(options));
        CollectSummary s = rig.get("/data.bin", dest, false, all.toArray(String[]::new));
        assertTrue(s.complete() && s.verified(), s.toText());
        assertEquals(TreeDigests.sha256(file), TreeDigests.sha256(dest), "byte-identical");
        assertEquals(21, sum(s.blocksBySource()), s.toText());
        return s;
    }

    @Test
    void flippedTamperedDuplicateAndForeignBlocksAreRecoveredFromTheOrigin() throws Exception {
        Fault[] bad = faults(new Fault.FlipBit(1), new Fault.Tamper(2), new Fault.Duplicate(3), new Fault.ForeignBlock(4));
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, bad, bad, bad)) {
            CollectSummary s = fetch(rig);
            assertTrue(anyCause(s, "relay:1", "Checksum"), "bit flip caught by the wire checksum: " + s.toText());
            assertTrue(anyCause(s, "relay:2", "Authentication"), "tampering caught by AES-GCM: " + s.toText());
            assertTrue(anyCause(s, "relay:1", "sequence"), "foreign block caught: " + s.toText());
            assertEquals(3L, s.blocksBySource().get("origin"), s.toText());
        }
    }

    /**
     * Blocks that carry many small files, damaged at the relays: one on the way (fetched again from its relay), one
     * for good (from the origin); every file arrives whole.
     */
    @Test
    void damagedBlocksOfSmallFilesAreRecoveredFileByFile() throws Exception {
        Fault[] bad = faults(new Fault.FlipBitOnce(2), new Fault.FlipBit(5));
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, bad, bad, bad)) {
            Path tree = rig.root().resolve("small");
            for (int f = 0; f < 400; f++) {
                TreeDigests.random(tree.resolve("d" + f % 7 + "/f" + f), f * 7919 % 5000, f);
            }
            Path dest = dir.resolve("small.copy");
            CollectSummary s = rig.get("/small", dest, false, "block-size=64k", "strategy=cyclic");
            assertTrue(s.complete() && s.verified(), s.toText());
            assertEquals(TreeDigests.of(tree), TreeDigests.of(dest), "byte-identical");
            assertTrue(s.blocks() < 40, "400 files in " + s.blocks() + " blocks");
            assertEquals(1, s.recoveries().get("relay").blocks(), s.toText());
            assertEquals(1L, s.blocksBySource().get("origin"), s.toText());
        }
    }

    @Test
    void blockDamagedOnTheWayIsFetchedAgainFromTheRelayThatHoldsIt() throws Exception {
        Fault[] onTheWay = faults(new Fault.FlipBitOnce(1), new Fault.FlipBitOnce(4));
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, onTheWay, onTheWay, onTheWay)) {
            CollectSummary s = fetch(rig);
            assertTrue(anyCause(s, "relay:1", "Checksum"), "damage caught by the wire checksum: " + s.toText());
            assertEquals(null, s.blocksBySource().get("origin"), "recovered without the origin: " + s.toText());
            assertEquals(7L, s.blocksBySource().get("relay:1"), s.toText());
            assertEquals(2, s.recoveries().get("relay").blocks(), s.toText());
            assertEquals(null, s.recoveries().get("origin"), s.toText());
        }
    }

    @Test
    void withTwoReplicasARelayDyingMidTransferCostsNothingFromTheOrigin() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, faults(), faults(new Fault.CloseAfter(150_000)),
                faults())) {
            CollectSummary s = fetch(rig, "replicas=2");
            assertTrue(s.retries().keySet().stream().anyMatch(k -> k.startsWith("relay:1: ")), s.toText());
            assertEquals(null, s.blocksBySource().get("origin"), "every block from a relay: " + s.toText());
        }
    }

    @Test
    void replicasAreFreedOnEveryRelayOnceVerified() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, faults(), faults(), faults())) {
            CollectSummary s = fetch(rig, "replicas=3");
            assertEquals(null, s.blocksBySource().get("origin"), s.toText());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (rig.relays().stream().mapToLong(r -> r.store().used()).sum() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(0, rig.relays().stream().mapToLong(r -> r.store().used()).sum(), "every replica confirmed");
            Fret lines = fret(rig, "/data.bin", "replicas=3");
            assertTrue(lines.blocks().stream().allMatch(b -> Fret.holders(b).size() == 3),
                    "every block on all three relays: " + lines);
        }
    }

    @Test
    void fhavRefusesBadClaimsAndAClaimForOtherFilesChangesNothing() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, faults(), faults(), faults())) {
            TreeDigests.random(rig.root().resolve("data.bin"), 300_000, 3);
            String m = "ab".repeat(32);
            try (ControlChannel c = ControlChannel.connect("127.0.0.1", rig.port(),
                    PinnedTrustManager.of(Set.of(rig.server().fingerprint())), Duration.ofSeconds(10))) {
                c.login(StripeRig.USER, StripeRig.PASSWORD.toCharArray(), false);
                for (String bad : List.of("FHAV", "FHAV " + m, "FHAV " + m + " 0", "FHAV nothex 0 0-10",
                        "FHAV " + m + " -1 0-10", "FHAV " + m + " 0 10-10", "FHAV " + m + " 0 20-10", "FHAV " + m + " 0 0-",
                        "FHAV " + m + " 0 x-y", "FHAV " + m + " 0 0-99999999999999999999", "FHAV " + m + " 0 0-1,",
                        "FHAV " + m + " 0 " + "0-1,".repeat(300) + "0-1")) {
                    assertEquals(501, c.command(bad).code(), bad);
                }
                // a well-formed claim for another manifest: FRET sends every block all the same
                assertEquals(200, c.command("FHAV " + m + " 0 0-300000").code());
                ControlChannel.expect(c.command("FSPO block-size=64k"), 200, "FSPO");
                Fret lines = Fret.read(c, "/data.bin");
                assertEquals(5, lines.blocks().stream().filter(b -> !Fret.holders(b).isEmpty()).count(),
                        "every block placed: " + lines);
            }
        }
    }

    /** A client that goes away while blocks are still being placed leaves nothing in the relays' quotas. */
    @Test
    void clientGoneDuringStripingFreesItsBlocksAtTheRelays() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, faults(), faults(), faults())) {
            TreeDigests.random(rig.root().resolve("big.bin"), 128 << 20, 5);
            try (ControlChannel c = ControlChannel.connect("127.0.0.1", rig.port(),
                    PinnedTrustManager.of(Set.of(rig.server().fingerprint())), Duration.ofSeconds(10))) {
                c.login(StripeRig.USER, StripeRig.PASSWORD.toCharArray(), false);
                ControlChannel.expect(c.command("FSPO block-size=64k"), 200, "FSPO");
                Fret.readBlocks(c, "/big.bin", 20);
                assertTrue(rig.relays().stream().mapToLong(r -> r.store().used()).sum() > 0, "blocks placed");
            } // the client disconnects while the server is still striping 2048 blocks
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (rig.relays().stream().mapToLong(r -> r.store().used()).sum() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(0, rig.relays().stream().mapToLong(r -> r.store().used()).sum(),
                    "every relay freed the abandoned transfer's blocks (they would otherwise stay for the TTL)");
        }
    }

    /**
     * A client that goes away after the 226 without collecting leaves nothing at the relays (its blocks would
     * otherwise hold their quota for the TTL), while another client's transfer keeps every block, and a
     * well-behaved client is served.
     */
    @Test
    void clientGoneAfterThe226FreesItsBlocksWhileALiveTransferKeepsItsOwn() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, faults(), faults(), faults())) {
            TreeDigests.random(rig.root().resolve("gone.bin"), 4 << 20, 3);
            TreeDigests.random(rig.root().resolve("live.bin"), 2 << 20, 4);
            try (ControlChannel live = control(rig)) {
                TransferId liveId = placeAll(live, "/live.bin");
                long liveBytes = heldAt(rig, liveId);
                assertTrue(liveBytes > 2 << 20, "the live transfer's blocks are at the relays: " + liveBytes);
                try (ControlChannel gone = control(rig)) {
                    TransferId goneId = placeAll(gone, "/gone.bin");
                    assertTrue(heldAt(rig, goneId) > 4 << 20, "placed");
                } // the client leaves after the 226, having fetched nothing
                awaitUsed(rig, liveBytes, "only the live transfer's blocks are left");
                assertEquals(liveBytes, heldAt(rig, liveId));
                CollectSummary s = rig.get("/gone.bin", dir.resolve("gone.copy"), false, "block-size=64k");
                assertTrue(s.complete() && s.verified(), s.toText());
                assertEquals(TreeDigests.sha256(rig.root().resolve("gone.bin")), TreeDigests.sha256(dir.resolve("gone.copy")));
            }
            awaitUsed(rig, 0, "the live transfer's blocks are freed once its client is gone too");
        }
    }

    /** FRET {@code path} and read its announcements up to the 226: every block is placed, none fetched. */
    private static TransferId placeAll(ControlChannel c, String path) throws Exception {
        return announced(c, path).id();
    }

    private static long heldAt(StripeRig rig, TransferId id) {
        return rig.relays().stream().mapToLong(r -> r.store().status(id).map(t -> t.bytes()).orElse(0L)).sum();
    }

    private static long used(StripeRig rig) {
        return rig.relays().stream().mapToLong(r -> r.store().used()).sum();
    }

    private static void awaitUsed(StripeRig rig, long expected, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (used(rig) != expected && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertEquals(expected, used(rig), what);
    }

    /** The same damage, recovered once from the relays and once (as without relay caches) from the origin. */
    @Test
    void damagedBlocksComeFromTheRelaysOrWithRelayRecoveryOffFromTheOrigin() throws Exception {
        Fault[] everyFifth = faults(new Fault.FlipBitOnceEvery(5));
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, everyFifth, everyFifth, everyFifth)) {
            CollectSummary fromRelays = fetch(rig);
            assertEquals(5, fromRelays.recoveries().get("relay").blocks(), "seqs 0, 5, 10, 15, 20: " + fromRelays.toText());
            assertEquals(null, fromRelays.recoveries().get("origin"), fromRelays.toText());
            assertTrue(fromRelays.toJson().contains("\"recovered\":{\"relay\":{\"blocks\":5,"), fromRelays.toJson());

            Path dest = dir.resolve("copy-origin.bin");
            CollectSummary fromOrigin = new Collector(rig.options("/data.bin", dest, VerificationMode.FIVER, false,
                    Duration.ofSeconds(10), "block-size=64k", "strategy=cyclic").withRelayRecovery(false)).run();
            assertTrue(fromOrigin.complete() && fromOrigin.verified(), fromOrigin.toText());
            assertEquals(TreeDigests.sha256(rig.root().resolve("data.bin")), TreeDigests.sha256(dest), "byte-identical");
            assertEquals(5, fromOrigin.recoveries().get("origin").blocks(), fromOrigin.toText());
            assertEquals(5L, fromOrigin.blocksBySource().get("origin"), fromOrigin.toText());
            assertEquals(null, fromOrigin.recoveries().get("relay"), fromOrigin.toText());
        }
    }

    @Test
    void tamperedClearBlockFailsItsDigest() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, faults(), faults(), faults(new Fault.Tamper(5)))) {
            CollectSummary s = fetch(rig, "cipher=none");
            assertTrue(anyCause(s, "relay:2", "digest mismatch"), s.toText());
            assertEquals(1L, s.blocksBySource().get("origin"), s.toText());
        }
    }

    @Test
    void relayDyingMidTransferIsReplacedByTheOrigin() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, faults(), faults(new Fault.CloseAfter(150_000)),
                faults())) {
            CollectSummary s = fetch(rig);
            assertTrue(s.retries().keySet().stream().anyMatch(k -> k.startsWith("relay:1: ")), s.toText());
            assertTrue(s.blocksBySource().getOrDefault("origin", 0L) >= 4, s.toText());
        }
    }

    @Test
    void relayThatNeverAnswersIsGivenUp() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, faults(), faults(), faults(new Fault.Stall()))) {
            CollectSummary s = fetch(rig);
            assertTrue(s.retries().keySet().stream().anyMatch(k -> k.startsWith("relay:2: ")), s.toText());
            assertEquals(7L, s.blocksBySource().get("origin"), s.toText());
        }
    }

    @Test
    void relayStoppedWhileBlocksFlowIsReplacedByTheOthersAndTheOrigin() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 0, faults(), faults(), faults())) {
            Path file = rig.root().resolve("big.bin");
            TreeDigests.random(file, 24 << 20, 13);
            Path dest = dir.resolve("big.copy");
            io.fsp.client.collect.Collector collector = new io.fsp.client.collect.Collector(rig.options("/big.bin", dest,
                    io.fsp.client.verify.VerificationMode.FIVER, false, Duration.ofSeconds(10), "block-size=64k"));
            java.util.concurrent.CompletableFuture<CollectSummary> run = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return collector.run();
                } catch (Exception e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (collector.bytesDone() == 0 && !run.isDone() && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            rig.relays().get(1).close(); // as if the relay's machine went away
            CollectSummary s = run.get(120, TimeUnit.SECONDS);
            assertTrue(s.complete() && s.verified(), s.toText());
            assertEquals(TreeDigests.sha256(file), TreeDigests.sha256(dest), "byte-identical");
            assertEquals(384, sum(s.blocksBySource()), s.toText());
        }
    }

    @Test
    void relayDownBeforeTheTransferIsLeftOut() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, faults(), faults(), faults())) {
            rig.relays().get(1).close();
            CollectSummary s = fetch(rig);
            assertTrue(!s.blocksBySource().containsKey("relay:1"), s.toText());
            assertEquals(0, sum(s.retries()), s.toText());
        }
    }

    /** FRET by hand: the 151 lines, without collecting anything. */
    private static Fret fret(StripeRig rig, String path, String... options) throws Exception {
        try (ControlChannel c = control(rig, options)) {
            return announced(c, path);
        }
    }

    /** A logged-in control connection with 64 KiB blocks and {@code options}. */
    private static ControlChannel control(StripeRig rig, String... options) throws Exception {
        ControlChannel c = ControlChannel.connect("127.0.0.1", rig.port(),
                PinnedTrustManager.of(Set.of(rig.server().fingerprint())), Duration.ofSeconds(10));
        c.login(StripeRig.USER, StripeRig.PASSWORD.toCharArray(), false);
        ControlChannel.expect(c.command(String.join(" ", "FSPO block-size=64k", String.join(" ", options)).strip()), 200, "FSPO");
        return c;
    }

    /** FRET {@code path} on {@code c}, read up to the 226. */
    private static Fret announced(ControlChannel c, String path) throws Exception {
        return Fret.read(c, path);
    }

    @Test
    void relayStoresHoldNoPlaintextAndRefuseTokensOfOtherTransfers() throws Exception {
        // memory 0: every block a relay holds is on its disk, where this test can look for plaintext
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 0, faults(), faults(), faults());
             ControlChannel firstClient = control(rig); ControlChannel secondClient = control(rig)) {
            byte[] plain = TreeDigests.random(rig.root().resolve("known.bin"), SIZE, 12);
            // Both clients stay connected: a client gone leaves nothing at the relays.
            Fret first = announced(firstClient, "/known.bin");
            Fret second = announced(secondClient, "/known.bin");

            long stored = 0;
            int samples = 0;
            try (Stream<Path> files = Files.walk(dir.resolve("rig"))) {
                for (Path p : files.filter(Files::isRegularFile).filter(p -> p.toString().contains("relay")).toList()) {
                    byte[] bytes = Files.readAllBytes(p);
                    stored += bytes.length;
                    for (int off = 0; off + 32 <= plain.length; off += 4093) {
                        samples++;
                        byte[] needle = Arrays.copyOfRange(plain, off, off + 32);
                        assertTrue(indexOf(bytes, needle) < 0, p + " holds plaintext from offset " + off);
                    }
                }
            }
            assertTrue(stored >= 2L * SIZE, "both transfers' blocks are on the relays' disks: " + stored + " bytes");
            assertTrue(samples > 0);

            // The token of the first transfer does not open the second one's blocks.
            CapabilityToken tokenOfFirst = first.token();
            TransferId secondId = second.id();
            Announcement.Relay relay = second.relay(0);
            EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
            try (RelayConnection c = RelayConnection.connect(new java.net.InetSocketAddress("127.0.0.1", relay.port()),
                    SslContexts.client(PinnedTrustManager.of(Set.of(relay.fingerprint())), Optional.empty()),
                    group, RelayConnectionConfig.DEFAULT).get(10, TimeUnit.SECONDS)) {
                c.authorize(tokenOfFirst).get(10, TimeUnit.SECONDS);
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> c.getBlock(secondId, 0).get(10, TimeUnit.SECONDS));
                assertInstanceOf(TokenRefusedException.class, e.getCause());
            } finally {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            }
        }
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}

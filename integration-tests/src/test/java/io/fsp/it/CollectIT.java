package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.cli.ExitCodes;
import io.fsp.client.evacuate.EvacuationManifest.State;
import io.fsp.crypto.RecipientKey;
import io.fsp.extension.Announcement;
import io.fsp.extension.FileSegment;
import io.fsp.it.harness.Bags;
import io.fsp.it.harness.FspCommand;
import io.fsp.it.harness.FspCommand.Result;
import io.fsp.it.harness.RecordedFret;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import io.fsp.testkit.relay.Fault;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fsp collect} from a manifest, with no control channel: an ordinary FRET on real relays is recorded (its
 * control connection kept open, so that the server does not abort the transfer at the relays), its lines are
 * sealed into a manifest, and the collect runs separately. The tree must arrive byte-identical as a valid BagIt
 * bag; a collect that is killed resumes; lying and missing relays are replaced by replicas; a wrong identity, an
 * altered manifest and a foreign origin are refused; a partial manifest yields the files it holds whole and names
 * the others.
 */
@Timeout(180)
class CollectIT {
    private static final Fault[] HONEST = {};

    @TempDir
    Path dir;

    private RecipientKey safeSite;
    private Path identity;
    private Path manifest;
    private Path bag;

    @BeforeEach
    void keys() throws Exception {
        safeSite = RecipientKey.generate("safe site");
        identity = dir.resolve("keys/identity");
        safeSite.writeIdentity(identity, false);
        manifest = dir.resolve("evacuation.sealed");
        bag = dir.resolve("bag");
    }

    private Result collect(String... more) {
        List<String> args = new ArrayList<>(List.of("collect", manifest.toString(), "-o", bag.toString(), "--identity",
                identity.toString(), "--json"));
        args.addAll(Arrays.asList(more));
        return FspCommand.run(args);
    }

    private static Path tree(StripeRig rig) throws Exception {
        Path tree = rig.root().resolve("tree");
        Files.createDirectories(tree.resolve("sub/deeper"));
        Files.createDirectories(tree.resolve("empty-dir"));
        TreeDigests.random(tree.resolve("big.bin"), 3 * 1024 * 1024 + 17, 1);
        for (int i = 0; i < 12; i++) {
            TreeDigests.random(tree.resolve("sub/small-" + i + ".txt"), 100 + i * 997, 10 + i);
        }
        TreeDigests.random(tree.resolve("sub/deeper/c ü.bin"), 200_000, 3);
        Files.write(tree.resolve("sub/empty"), new byte[0]);
        return tree;
    }

    @Test
    void collectsATreeByteIdenticalIntoAValidBagAndFreesTheRelays() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, HONEST, HONEST, HONEST)) {
            Path tree = tree(rig);
            // an evacuation: the server signs its lines, and the collect checks them against its certificate
            try (RecordedFret fret = RecordedFret.of(rig, "/tree", "block-size=64k", "replicas=2", "retain=1h")) {
                for (var relay : rig.relays()) {
                    assertEquals(relay.store().used(), relay.store().reserved(), "after the 226: reserved what is held");
                }
                fret.write(manifest, safeSite, State.COMPLETE, a -> true);
                Result r = collect("--trust-origin", rig.server().fingerprint().toString());
                assertEquals(ExitCodes.OK, r.exit(), r.toString());
                assertEquals(TreeDigests.of(tree), TreeDigests.of(bag.resolve("data")), "byte-identical, nothing else in data/");
                assertTrue(r.out().contains("\"complete\":true,\"verified\":true"), r.toString());
                assertFalse(r.out().contains("\"origin\""), "nothing from the origin: " + r);
                assertBagIsValid(tree);
                try (Stream<Path> left = Files.list(bag)) {
                    assertEquals(List.of("bag-info.txt", "bagit.txt", "data", "manifest-sha256.txt", "tagmanifest-sha256.txt"),
                            left.map(p -> p.getFileName().toString()).sorted().toList(), "journal and temporary files gone");
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (rig.relays().stream().mapToLong(x -> x.store().reserved()).sum() > 0 && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertEquals(0, rig.relays().stream().mapToLong(x -> x.store().reserved()).sum(),
                        "collected whole: nothing stays reserved at any relay");
                assertEquals(0, rig.relays().stream().mapToLong(x -> x.store().used()).sum(),
                        "every replica confirmed and freed");
                assertEquals(0, rig.relays().stream().mapToInt(x -> x.store().openTransfers()).sum(),
                        "the transfer ended at every relay");
                Result again = collect("--trust-origin", rig.server().fingerprint().toString());
                assertEquals(ExitCodes.FAILURE, again.exit(), again.toString());
                assertTrue(again.err().contains("is a bag already"), again.toString());
                assertEquals(TreeDigests.of(tree), TreeDigests.of(bag.resolve("data")), "the bag left as it was");
            }
        }
    }

    @Test
    void aKilledCollectResumesFromItsJournal() throws Exception {
        Fault[] slow = {new Fault.Throttle(700_000)};
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, slow, slow, slow)) {
            Path file = rig.root().resolve("big.bin");
            TreeDigests.random(file, 6 * 1024 * 1024 + 5, 21);
            try (RecordedFret fret = RecordedFret.of(rig, "/big.bin", "block-size=64k")) {
                fret.write(manifest, safeSite, State.COMPLETE, a -> true);
                Path journal = bag.resolve("data/.big.bin.fsp-journal");
                killMidway(journal);
                assertFalse(Files.exists(bag.resolve("data/big.bin")), "nothing under the final name yet");

                Result r = collect("--no-origin-check");
                assertEquals(ExitCodes.OK, r.exit(), r.toString());
                assertEquals(TreeDigests.sha256(file), TreeDigests.sha256(bag.resolve("data/big.bin")));
                long resumed = count(r.out(), "journal");
                assertTrue(resumed > 0 && resumed < 97, "blocks taken from the journal: " + r);
                assertEquals(97, resumed + count(r.out(), "relay:0") + count(r.out(), "relay:1") + count(r.out(), "relay:2"), r.toString());
                assertFalse(Files.exists(journal), "journal removed once complete");
                assertBagIsValid(null);
            }
        }
    }

    @Test
    void blocksALyingRelayServesComeFromAReplica() throws Exception {
        Fault[] liar = {new Fault.FlipBit(1), new Fault.Tamper(4), new Fault.ForeignBlock(7)};
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, HONEST, liar, HONEST)) {
            Path file = rig.root().resolve("data.bin");
            TreeDigests.random(file, 20 * 64 * 1024 + 999, 11);
            try (RecordedFret fret = RecordedFret.of(rig, "/data.bin", "block-size=64k", "strategy=cyclic", "replicas=2")) {
                fret.write(manifest, safeSite, State.COMPLETE, a -> true);
                Result r = collect("--no-origin-check");
                assertEquals(ExitCodes.OK, r.exit(), r.toString());
                assertEquals(TreeDigests.sha256(file), TreeDigests.sha256(bag.resolve("data/data.bin")));
                assertTrue(r.out().contains("\"relay:1: BlockChecksum"), "the bit flip was caught: " + r);
                assertTrue(r.out().contains("\"relay:1: BlockAuthentication"), "the tampering was caught: " + r);
                assertTrue(r.out().contains("\"relay:1: BlockFormat: sequence"), "the foreign block was caught: " + r);
                assertTrue(r.out().contains("\"recovered\":{\"relay\":{\"blocks\":3,"), "all three from replicas: " + r);
            }
        }
    }

    @Test
    void withReplicasARelayThatIsGoneCostsNothing() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, HONEST, HONEST, HONEST)) {
            Path tree = tree(rig);
            try (RecordedFret fret = RecordedFret.of(rig, "/tree", "block-size=64k", "replicas=2")) {
                fret.write(manifest, safeSite, State.COMPLETE, a -> true);
                rig.relays().get(1).close();
                Result r = collect("--no-origin-check");
                assertEquals(ExitCodes.OK, r.exit(), r.toString());
                assertEquals(TreeDigests.of(tree), TreeDigests.of(bag.resolve("data")));
                assertEquals(0, count(r.out(), "relay:1"), r.toString());
            }
        }
    }

    @Test
    void aBlockNoRelayDeliversIntactLeavesItsFileUnverifiedAndNoBag() throws Exception {
        Fault[] liar = {new Fault.FlipBit(1)};
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, HONEST, liar, HONEST)) {
            Path file = rig.root().resolve("data.bin");
            TreeDigests.random(file, 20 * 64 * 1024 + 999, 11);
            try (RecordedFret fret = RecordedFret.of(rig, "/data.bin", "block-size=64k", "strategy=cyclic")) {
                fret.write(manifest, safeSite, State.COMPLETE, a -> true);
                Result r = collect("--no-origin-check");
                assertEquals(ExitCodes.VERIFICATION_FAILED, r.exit(), r.toString());
                assertTrue(r.err().contains("files not verified: data.bin"), r.toString());
                assertTrue(r.err().contains("1 of 21 blocks could not be verified"), r.toString());
                assertFalse(Files.exists(bag.resolve("bagit.txt")), "no bag for an unfinished collection");
            }
        }
    }

    @Test
    void aWrongIdentityAnAlteredManifestAndAForeignOriginAreRefused() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, HONEST)) {
            TreeDigests.random(rig.root().resolve("data.bin"), 100_000, 5);
            try (RecordedFret fret = RecordedFret.of(rig, "/data.bin", "block-size=64k")) {
                fret.write(manifest, safeSite, State.COMPLETE, a -> true);

                Path ours = identity;
                identity = dir.resolve("other/identity");
                RecipientKey.generate("").writeIdentity(identity, false);
                Result wrongKey = collect("--no-origin-check");
                identity = ours;
                assertEquals(ExitCodes.FAILURE, wrongKey.exit(), wrongKey.toString());
                assertTrue(wrongKey.err().contains("sealed to another recipient key"), wrongKey.toString());

                Result foreign = collect("--trust-origin", "AB:" + "00:".repeat(30) + "CD");
                assertEquals(ExitCodes.UNTRUSTED_ORIGIN, foreign.exit(), foreign.toString());
                assertTrue(foreign.err().contains("the origin's certificate is " + rig.server().fingerprint() + ", not the trusted"),
                        foreign.toString());
                Result unsigned = collect("--trust-origin", rig.server().fingerprint().toString());
                assertEquals(ExitCodes.UNTRUSTED_ORIGIN, unsigned.exit(), unsigned.toString());
                assertTrue(unsigned.err().contains("the origin did not sign it"), unsigned.toString());
                Result neither = collect();
                assertEquals(ExitCodes.USAGE, neither.exit(), neither.toString());
                assertTrue(neither.err().contains("--trust-origin FINGERPRINT is needed"), neither.toString());

                byte[] sealed = Files.readAllBytes(manifest);
                sealed[sealed.length / 2] ^= 0x10;
                Files.write(manifest, sealed);
                Result altered = collect("--no-origin-check");
                assertEquals(ExitCodes.FAILURE, altered.exit(), altered.toString());
                assertTrue(altered.err().contains("altered or damaged"), altered.toString());
                assertFalse(Files.exists(bag), "nothing fetched, nothing created");
            }
        }
    }

    @Test
    void aPartialManifestYieldsTheFilesItHoldsWholeAndNamesTheOthers() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, HONEST, HONEST)) {
            Path tree = tree(rig);
            try (RecordedFret fret = RecordedFret.of(rig, "/tree", "block-size=64k")) {
                Map<String, Integer> index = new TreeMap<>();
                List<Announcement.File> files = new ArrayList<>();
                fret.announcements().forEach(a -> {
                    if (a instanceof Announcement.File f) {
                        index.put(f.name(), f.index());
                        files.add(f);
                    }
                });
                int big = index.get("big.bin");
                int small = index.get("sub/small-3.txt");
                // Cut as a deadline would: one block of big.bin and the block holding sub/small-3.txt never placed;
                // that block carries small files beside it, which go missing with it.
                long[] dropped = {-1};
                List<String> missing = new ArrayList<>();
                fret.write(manifest, safeSite, State.PARTIAL, a -> {
                    if (!(a instanceof Announcement.Block b)) {
                        return true;
                    }
                    List<FileSegment> parts = FileSegment.of(b.file(), b.offset(), b.length(), files.size(),
                            f -> files.get(f).size());
                    if (parts.stream().anyMatch(p -> p.file() == small)) {
                        parts.forEach(p -> missing.add(files.get(p.file()).name()));
                        return false;
                    }
                    return !(b.file() == big && (dropped[0] < 0 ? (dropped[0] = b.seq()) >= 0 : dropped[0] == b.seq()));
                });
                assertTrue(missing.size() > 1, "the small file shares its block: " + missing);
                missing.add(0, "big.bin");
                Result r = collect("--no-origin-check");
                assertEquals(ExitCodes.PARTIAL, r.exit(), r.toString());
                assertTrue(r.err().contains("does not hold these files whole, they were not evacuated: "
                        + String.join(", ", missing)), r.toString());
                Map<String, String> expected = TreeDigests.of(tree);
                missing.forEach(expected::remove);
                assertEquals(expected, TreeDigests.of(bag.resolve("data")), "the rest byte-identical, nothing of the missing");
                assertBagIsValid(null);
            }
        }
    }

    /** The bag is valid and, given the original tree, holds as many files. */
    private void assertBagIsValid(Path original) throws Exception {
        List<String> files = Bags.assertValid(bag);
        if (original != null) {
            assertEquals(TreeDigests.of(original).values().stream().filter(v -> !v.equals("dir")).count(), files.size());
        }
    }

    private static long count(String json, String source) {
        Matcher m = Pattern.compile("\"blocks_by_source\":\\{[^}]*\"" + Pattern.quote(source) + "\":(\\d+)").matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /** Runs {@code fsp collect} as a process and kills it (SIGKILL) once it has journaled some blocks. */
    private void killMidway(Path journal) throws Exception {
        ProcessBuilder pb = FspCommand.process(List.of("collect", manifest.toString(), "-o", bag.toString(), "--identity",
                identity.toString(), "--json", "--no-origin-check"));
        pb.redirectErrorStream(true).redirectOutput(dir.resolve("first-run.log").toFile());
        Process client = pb.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!(Files.exists(journal) && Files.size(journal) > 2000) && client.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(client.isAlive(), "the first run ended before it could be killed: "
                + Files.readString(dir.resolve("first-run.log")));
        client.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        assertTrue(Files.exists(journal), "the journal survives the kill");
    }
}

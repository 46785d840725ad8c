package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.cli.ExitCodes;
import io.fsp.client.evacuate.EvacuationManifest;
import io.fsp.client.evacuate.EvacuationManifest.State;
import io.fsp.crypto.RecipientKey;
import io.fsp.extension.Announcement;
import io.fsp.it.harness.SafeSite;
import io.fsp.it.harness.Bags;
import io.fsp.it.harness.FspCommand;
import io.fsp.it.harness.FspCommand.Result;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import io.fsp.testkit.relay.Fault;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fsp evacuate} as a process against a real server that retains (FSPO retain, FPRI, no abort when the
 * evacuating client leaves) and real relays, then {@code fsp collect} with the origin gone: byte-identical into a
 * valid bag; a relay gone and a relay restarted cost nothing; the deadline and a crash of the evacuating process
 * leave a manifest of what is out, with the priority files first.
 */
@Timeout(300)
class EvacuateIT {
    private static final Fault[] HONEST = {};

    @TempDir
    Path dir;

    private Path identity;
    private Path recipient;
    private Path manifest;
    private Path bag;

    @BeforeEach
    void keys() throws Exception {
        SafeSite site = SafeSite.under(dir);
        identity = site.identity();
        recipient = site.recipient();
        manifest = site.manifest();
        bag = dir.resolve("archive");
    }

    private Process startEvacuate(StripeRig rig, String path, String... more) throws Exception {
        List<String> command = new ArrayList<>(List.of("evacuate",
                "fsp://" + StripeRig.USER + "@127.0.0.1:" + rig.port() + path, "--trust", rig.server().fingerprint().toString(),
                "--manifest", manifest.toString(), "--recipient", recipient.toString(), "--retain", "2h"));
        command.addAll(Arrays.asList(more));
        ProcessBuilder pb = FspCommand.process(command).redirectOutput(dir.resolve("evacuate.out").toFile())
                .redirectError(dir.resolve("evacuate.err").toFile());
        pb.environment().put("FSP_PASSWORD", StripeRig.PASSWORD);
        return pb.start();
    }

    private Result evacuate(StripeRig rig, String path, String... more) throws Exception {
        Process p = startEvacuate(rig, path, more);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "fsp evacuate did not end");
        return new Result(p.exitValue(), Files.readString(dir.resolve("evacuate.out")), Files.readString(dir.resolve("evacuate.err")));
    }

    private Result collect(String... more) {
        List<String> args = new ArrayList<>(List.of("collect", manifest.toString(), "-o", bag.toString(), "--identity",
                identity.toString(), "--json"));
        args.addAll(Arrays.asList(more));
        return FspCommand.run(args);
    }

    private static Path tree(StripeRig rig) throws Exception {
        Path tree = rig.root().resolve("tree");
        TreeDigests.random(tree.resolve("big.bin"), 3 * 1024 * 1024 + 17, 1);
        for (int i = 0; i < 12; i++) {
            TreeDigests.random(tree.resolve("sub/small-" + i + ".txt"), 100 + i * 997, 10 + i);
        }
        TreeDigests.random(tree.resolve("sub/deeper/c ü.bin"), 200_000, 3);
        Files.write(tree.resolve("sub/empty"), new byte[0]);
        return tree;
    }

    /** A tree whose priority files ({@code first/}, {@code z.bin}) leave in seconds and whose 16 GiB do not. */
    private Path hugeTree(StripeRig rig) throws Exception {
        Path tree = rig.root().resolve("tree");
        TreeDigests.random(tree.resolve("first/a.bin"), 1024 * 1024 + 1, 1);
        TreeDigests.random(tree.resolve("first/b.bin"), 70_000, 2);
        TreeDigests.random(tree.resolve("z.bin"), 500_000, 3);
        try (RandomAccessFile f = new RandomAccessFile(tree.resolve("huge.bin").toFile(), "rw")) {
            f.setLength(16L << 30); // sparse: the server reads zeros, as fast as it hashes
        }
        Files.writeString(dir.resolve("priority.txt"), "# what must leave first\nfirst\nz.bin\n");
        return tree;
    }

    /** The small files of {@link #hugeTree} are in the bag, byte-identical (the 16 GiB are not hashed). */
    private void assertPriorityFilesCollected(Path tree) throws Exception {
        for (String name : List.of("first/a.bin", "first/b.bin", "z.bin")) {
            assertEquals(TreeDigests.sha256(tree.resolve(name)), TreeDigests.sha256(bag.resolve("data").resolve(name)), name);
        }
    }

    @Test
    void anEvacuatedTreeIsCollectedWithTheOriginAndARelayGone() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 16L << 20, HONEST, HONEST, HONEST)) {
            Path tree = tree(rig);
            Files.writeString(dir.resolve("priority.txt"), "sub/deeper\n");
            Result e = evacuate(rig, "/tree", "--replicas", "2", "--priority", dir.resolve("priority.txt").toString());
            assertEquals(ExitCodes.OK, e.exit(), e.toString());
            assertTrue(e.out().startsWith("evacuated: 15 of 15 files wholly on relays"), e.toString());
            assertTrue(e.out().contains("\n  priority 'sub/deeper': out\n"), "the priority entry's state: " + e);
            EvacuationManifest m = EvacuationManifest.read(manifest, RecipientKey.readIdentity(identity));
            assertEquals(State.COMPLETE, m.state());
            assertEquals(m.created().plus(java.time.Duration.ofHours(2)), m.retainUntil(), "--retain 2h");
            assertTrue(e.out().contains("blocks kept on the relays until " + m.retainUntil() + "\n"), "as in the manifest: " + e);
            assertEquals("sub/deeper/c ü.bin", m.announcements().stream().filter(a -> a instanceof Announcement.File)
                    .map(a -> ((Announcement.File) a).name()).findFirst().orElseThrow(), "the server sent it first");
            String fingerprint = rig.server().fingerprint().toString();
            for (var relay : rig.relays()) {
                assertEquals(relay.store().used(), relay.store().reserved(), "once evacuated: reserved what is held");
            }
            // Which relays take a tree of a few blocks is a race between them (first come, first served): the relay
            // lost is one that holds some, so that its blocks must come from the other replicas.
            var lost = rig.relays().stream().filter(r -> r.store().used() > 0).reduce((a, b) -> b).orElseThrow();

            rig.server().close(); // the origin is lost
            lost.close(); // and a relay
            Result c = collect("--trust-origin", fingerprint);
            assertEquals(ExitCodes.OK, c.exit(), c.toString());
            assertEquals(TreeDigests.of(tree), TreeDigests.of(bag.resolve("data")));
            assertEquals(15, Bags.assertValid(bag).size(), "15 files and nothing else");
            for (var relay : rig.relays().stream().filter(r -> r != lost).toList()) { // collect confirmed every block
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); // the relay deletes them meanwhile
                while (relay.store().reserved() > 0 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertEquals(0, relay.store().reserved(), "collected whole: nothing stays reserved");
                assertEquals(0, relay.store().retainedTransfers(), "the transfer ended");
            }
        }
    }

    /** A user the server's retain-user does not name is refused at FSPO: exit 1 naming why, nothing at the relays. */
    @Test
    void aUserWithoutTheRightToRetainIsRefusedBeforeAnythingIsSent() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 16L << 20, c -> c,
                Map.of("retain-user", List.of("someone-else=30d")), HONEST, HONEST)) {
            tree(rig);
            Result e = evacuate(rig, "/tree", "--replicas", "1");
            assertEquals(ExitCodes.FAILURE, e.exit(), e.toString());
            assertTrue(e.err().contains("550 retain=2h refused: user " + StripeRig.USER + " may not retain transfers at"
                    + " the relays"), e.toString());
            for (var relay : rig.relays()) {
                assertEquals(0, relay.store().reserved(), "nothing reserved");
                assertEquals(0, relay.store().openTransfers(), "nothing opened");
            }
        }
    }

    /** Needs the relays to keep retained transfers across a restart (relay-retention). */
    @Test
    void aRelayRestartedAfterTheEvacuationStillServesItsBlocks() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 16L << 20, HONEST, HONEST, HONEST)) {
            Path tree = tree(rig);
            Result e = evacuate(rig, "/tree", "--replicas", "1");
            assertEquals(ExitCodes.OK, e.exit(), e.toString());
            String fingerprint = rig.server().fingerprint().toString();
            rig.server().close();
            for (int i = 0; i < rig.relays().size(); i++) { // packed blocks may leave a relay with none: restart all
                rig.restartRelay(i);
            }
            Result c = collect("--trust-origin", fingerprint);
            assertEquals(ExitCodes.OK, c.exit(), c.toString());
            assertEquals(TreeDigests.of(tree), TreeDigests.of(bag.resolve("data")));
            assertTrue(c.out().matches("(?s).*\"blocks_by_source\":\\{\"relay:\\d\":\\d+(,\"relay:\\d\":\\d+)*\\}.*"),
                    "every block came from a restarted relay: " + c);
        }
    }

    @Test
    void theDeadlineLeavesAPartialManifestWithThePriorityFilesOut() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 16L << 20, HONEST, HONEST, HONEST)) {
            Path tree = hugeTree(rig);
            Result e = evacuate(rig, "/tree", "--replicas", "1", "--deadline", "6s", "--json", "--priority",
                    dir.resolve("priority.txt").toString());
            assertEquals(ExitCodes.PARTIAL, e.exit(), e.toString());
            assertTrue(e.out().contains("\"out\":[\"first/a.bin\",\"first/b.bin\",\"z.bin\"],\"not_out\":[\"huge.bin\"]"), e.toString());
            assertTrue(e.out().contains("\"state\":\"partial\",\"complete\":false,\"deadline_reached\":true"), e.toString());
            assertEquals(State.PARTIAL, EvacuationManifest.read(manifest, RecipientKey.readIdentity(identity)).state());
            String fingerprint = rig.server().fingerprint().toString();
            rig.server().close();

            Result c = collect("--trust-origin", fingerprint);
            assertEquals(ExitCodes.PARTIAL, c.exit(), c.toString());
            assertTrue(c.err().contains("they were not evacuated: huge.bin"), c.toString());
            assertPriorityFilesCollected(tree);
            assertEquals(List.of("data/first/a.bin", "data/first/b.bin", "data/z.bin"), Bags.assertValid(bag).stream().sorted().toList(),
                    "nothing of huge.bin");
        }
    }

    @Test
    void aCrashedEvacuationLeavesItsLastCheckpoint() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 16L << 20, HONEST, HONEST, HONEST)) {
            Path tree = hugeTree(rig);
            Process p = startEvacuate(rig, "/tree", "--replicas", "1", "--priority", dir.resolve("priority.txt").toString());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(manifest) && p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(p.isAlive(), "ended before its first checkpoint: " + Files.readString(dir.resolve("evacuate.err")));
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // as a crash, or the building's power, ends it
            EvacuationManifest m = EvacuationManifest.read(manifest, RecipientKey.readIdentity(identity));
            assertEquals(State.RUNNING, m.state());
            assertTrue(m.blocks() > 0, "blocks placed before the checkpoint are in it");
            assertFalse(Files.list(manifest.getParent()).anyMatch(f -> f.getFileName().toString().contains(".part")),
                    "nothing half-written beside it");
            String fingerprint = rig.server().fingerprint().toString();
            rig.server().close();

            Result c = collect("--trust-origin", fingerprint);
            assertEquals(ExitCodes.PARTIAL, c.exit(), c.toString());
            assertTrue(c.err().contains("huge.bin"), c.toString());
            assertPriorityFilesCollected(tree);
            Bags.assertValid(bag);
        }
    }
}

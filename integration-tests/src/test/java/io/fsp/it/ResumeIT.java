package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.collect.CollectSummary;
import io.fsp.it.harness.FspCommand;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import io.fsp.testkit.relay.Fault;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fsp get} as a real process, killed (SIGKILL) in the middle of a transfer from throttled relays; the
 * same get run again resumes: blocks the journal holds as verified are not fetched again, and the result is
 * byte-identical.
 */
class ResumeIT {
    @TempDir
    Path dir;

    @Test
    @Tag("in-process-too")
    void killedGetResumesWithoutFetchingVerifiedBlocksAgain() throws Exception {
        try (StripeRig rig = slowRig()) {
            Path file = rig.root().resolve("big.bin");
            TreeDigests.random(file, 6 * 1024 * 1024 + 5, 21);
            Path dest = dir.resolve("big.copy");
            Path journal = killMidway(rig, dest);
            Path part = dir.resolve(".big.copy.fsp-part");
            assertFalse(Files.exists(dest), "an interrupted run leaves nothing under the final name");
            assertTrue(Files.exists(part), "its blocks are in the temporary file");

            CollectSummary s = rig.get("/big.bin", dest, false, "block-size=64k");
            assertTrue(s.complete() && s.verified(), s.toText());
            assertEquals(TreeDigests.sha256(file), TreeDigests.sha256(dest));
            long resumed = s.blocksBySource().getOrDefault("journal", 0L);
            assertTrue(resumed > 0 && resumed < 97, "blocks taken from the journal: " + s.toText());
            long fetched = s.blocksBySource().entrySet().stream().filter(e -> !e.getKey().equals("journal"))
                    .mapToLong(e -> e.getValue()).sum();
            assertEquals(97 - resumed, fetched, "only the blocks not verified before are fetched: " + s.toText());
            assertEquals(resumed, s.notSent(), "the server neither read nor sent what the journal holds: " + s.toText());
            assertEquals(null, s.blocksBySource().get("origin"), "the rest came from the relays: " + s.toText());
            assertFalse(Files.exists(journal), "journal removed once complete");
            assertFalse(Files.exists(dir.resolve(".big.copy.fsp-manifest")), "manifest removed once complete");
            assertFalse(Files.exists(part), "the temporary file became the file");
            assertFalse(Files.exists(lock(dest)), "the killed run's lock, unlocked, was taken and removed");
        }
    }

    /**
     * RIVA trusts nothing it has not read back from the disk, resumed blocks included: every block of the copy is
     * damaged after the killed run, and the resumed run must fetch every one of them again (none from the journal).
     */
    @Test
    void rivaReadsResumedBlocksBackFromDiskAndFetchesDamagedOnesAgain() throws Exception {
        try (StripeRig rig = slowRig()) {
            Path file = rig.root().resolve("big.bin");
            TreeDigests.random(file, 6 * 1024 * 1024 + 5, 23);
            Path dest = dir.resolve("big.copy");
            killMidway(rig, "/big.bin", dest, "--verify", "riva");
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(dir.resolve(".big.copy.fsp-part"),
                    java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
                java.nio.ByteBuffer one = java.nio.ByteBuffer.allocate(1);
                for (long at = 1000; at < Files.size(file); at += 64 * 1024) {
                    one.clear();
                    ch.read(one, at);
                    one.put(0, (byte) (one.get(0) ^ 0x40)).rewind();
                    ch.write(one, at);
                }
                ch.force(true);
            }

            CollectSummary s = new io.fsp.client.collect.Collector(rig.options("/big.bin", dest,
                    io.fsp.client.verify.VerificationMode.RIVA, false, java.time.Duration.ofSeconds(10), "block-size=64k")).run();
            assertTrue(s.complete() && s.verified(), s.toText());
            assertEquals(TreeDigests.sha256(file), TreeDigests.sha256(dest));
            assertEquals(null, s.blocksBySource().get("journal"), "a damaged block taken from the journal: " + s.toText());
            assertTrue(s.retries().keySet().stream().anyMatch(k -> k.contains("no longer matches its digest on disk")),
                    "the resumed blocks were read back and found damaged: " + s.toText());
        }
    }

    @Test
    void aFileChangedSinceTheKilledRunIsSentWhole() throws Exception {
        try (StripeRig rig = slowRig()) {
            Path file = rig.root().resolve("big.bin");
            TreeDigests.random(file, 6 * 1024 * 1024 + 5, 21);
            Path dest = dir.resolve("big.copy");
            killMidway(rig, dest);
            TreeDigests.random(file, 6 * 1024 * 1024 + 5, 22); // new content, new modification time

            CollectSummary s = rig.get("/big.bin", dest, false, "block-size=64k");
            assertTrue(s.complete() && s.verified(), s.toText());
            assertEquals(TreeDigests.sha256(file), TreeDigests.sha256(dest));
            assertEquals(0, s.notSent(), s.toText());
            assertEquals(null, s.blocksBySource().get("journal"), "nothing of the old content kept: " + s.toText());
        }
    }

    @Test
    void killedGetOfADirectoryTreeResumesWithoutTheServerSendingHeldBlocks() throws Exception {
        try (StripeRig rig = slowRig()) {
            Path tree = rig.root().resolve("tree");
            Files.createDirectories(tree.resolve("sub/deeper"));
            TreeDigests.random(tree.resolve("a.bin"), 2 * 1024 * 1024 + 3, 1);
            TreeDigests.random(tree.resolve("sub/b.bin"), 3 * 1024 * 1024, 2);
            TreeDigests.random(tree.resolve("sub/deeper/c ü.bin"), 1024 * 1024 + 77, 3);
            Files.write(tree.resolve("sub/empty"), new byte[0]);
            Path dest = dir.resolve("tree.copy");
            killMidway(rig, "/tree", dest);

            CollectSummary s = rig.get("/tree", dest, false, "block-size=64k");
            assertTrue(s.complete() && s.verified(), s.toText());
            assertEquals(TreeDigests.of(tree), TreeDigests.of(dest));
            long resumed = s.blocksBySource().getOrDefault("journal", 0L);
            assertTrue(resumed > 0, "blocks taken from the journal: " + s.toText());
            assertEquals(resumed, s.notSent(), "the server neither read nor sent what the journal holds: " + s.toText());
        }
    }

    /**
     * A tree of small files, packed several to a block: the resumed run takes each journaled block, and so every file
     * in it, from the disk; files a killed run completed keep their content, the others get theirs.
     */
    @Test
    void killedGetOfManySmallFilesResumesTheirSharedBlocks() throws Exception {
        try (StripeRig rig = slowRig()) {
            Path tree = rig.root().resolve("small");
            int files = 0;
            for (int d = 0; d < 10; d++) {
                for (int f = 0; f < 100; f++, files++) {
                    TreeDigests.random(tree.resolve("d" + d + "/f" + f), files * 7919 % 12_000, files);
                }
            }
            Path dest = dir.resolve("small.copy");
            killMidway(rig, "/small", dest);

            CollectSummary s = rig.get("/small", dest, false, "block-size=64k");
            assertTrue(s.complete() && s.verified(), s.toText());
            assertEquals(TreeDigests.of(tree), TreeDigests.of(dest));
            assertTrue(s.blocks() < files / 5, "small files share blocks: " + s.blocks() + " blocks for " + files + " files");
            long resumed = s.blocksBySource().getOrDefault("journal", 0L);
            assertTrue(resumed > 0, "blocks taken from the journal: " + s.toText());
            assertEquals(resumed, s.notSent(), "the server neither read nor sent what the journal holds: " + s.toText());
            try (var left = Files.walk(dest)) {
                assertEquals(List.of(), left.filter(p -> p.getFileName().toString().endsWith(".fsp-part")).toList());
            }
        }
    }

    /**
     * A second run into the same destination while the first still writes there (a rerun started too early, a
     * scheduled job overlapping the last) is refused before it reads or writes anything there; the first ends
     * verified. Before, the second took the first's journaled blocks as its own, and one renamed the file the other
     * still wrote.
     */
    @Test
    @Tag("in-process-too")
    void aSecondRunIntoTheSameDestinationIsRefusedWhileTheFirstRuns() throws Exception {
        // slower than the others: the first still runs after a second JVM started on a busy machine
        try (StripeRig rig = slowRig(300_000)) {
            Path file = rig.root().resolve("big.bin");
            TreeDigests.random(file, 6 * 1024 * 1024 + 5, 24);
            Path dest = dir.resolve("big.copy");
            Process first = startGet(rig, "/big.bin", dest, dir.resolve("first-run.log"));
            long journaled = Files.size(journal(dest));

            Path secondLog = dir.resolve("second-run.log");
            Process second = getProcess(rig, "/big.bin", dest, secondLog).start();
            assertTrue(second.waitFor(60, TimeUnit.SECONDS));
            String said = Files.readString(secondLog);
            assertEquals(1, second.exitValue(), said);
            assertTrue(said.contains("fsp get: another run is writing to this destination (pid " + first.pid()
                    + ", collecting /big.bin from "), said);
            assertTrue(said.contains("or choose another -o"), said);
            assertFalse(said.contains("rerun"), "a rerun would be refused the same way while the first runs: " + said);
            assertTrue(first.isAlive(), "the second was refused while the first ran");
            assertTrue(Files.size(journal(dest)) >= journaled, "the first run's journal is left alone");

            assertTrue(first.waitFor(120, TimeUnit.SECONDS));
            String firstSaid = Files.readString(dir.resolve("first-run.log"));
            assertEquals(0, first.exitValue(), firstSaid);
            assertTrue(firstSaid.contains("\"verified\":true"), firstSaid);
            assertEquals(TreeDigests.sha256(file), TreeDigests.sha256(dest));
            assertFalse(Files.exists(lock(dest)), "its holder removed the lock's file");
        }
    }

    /**
     * {@code -o} a directory: the file goes into it, and so do its journal and lock; a run stopped by a signal names
     * that journal, and a rerun resumes from it.
     */
    @Test
    void aFileFetchedIntoADirectoryResumesThere() throws Exception {
        try (StripeRig rig = slowRig()) {
            Path file = rig.root().resolve("big.bin");
            TreeDigests.random(file, 6 * 1024 * 1024 + 5, 25);
            Path into = Files.createDirectories(dir.resolve("into"));
            Path dest = into.resolve("big.bin");
            Process first = startGet(rig, "/big.bin", into, journal(dest), dir.resolve("first-run.log"));
            first.destroy(); // SIGTERM, as Ctrl-C ends it: the run says how to go on
            assertTrue(first.waitFor(10, TimeUnit.SECONDS));
            String said = Files.readString(dir.resolve("first-run.log"));
            assertTrue(said.contains("fsp get: interrupted; rerun the same command to resume (" + journal(dest) + ")"), said);
            assertTrue(Files.exists(dir.resolve("into/.big.bin.fsp-part")), "the stopped run wrote in the directory");

            CollectSummary s = rig.get("/big.bin", into, false, "block-size=64k");
            assertTrue(s.complete() && s.verified(), s.toText());
            assertEquals(TreeDigests.sha256(file), TreeDigests.sha256(dest));
            long resumed = s.blocksBySource().getOrDefault("journal", 0L);
            assertTrue(resumed > 0, "blocks taken from the journal: " + s.toText());
            assertEquals(resumed, s.notSent(), "the server was told what the killed run holds: " + s.toText());
            try (var left = Files.list(into)) {
                assertEquals(List.of("big.bin"), left.map(p -> p.getFileName().toString()).toList());
            }
        }
    }

    /** Three relays throttled to 700 kB/s each: slow enough that a get can be killed midway. */
    private StripeRig slowRig() throws Exception {
        return slowRig(700_000);
    }

    private StripeRig slowRig(long bytesPerSecond) throws Exception {
        Fault[] slow = {new Fault.Throttle(bytesPerSecond)};
        return StripeRig.start(dir.resolve("rig"), 64L << 20, slow, slow, slow);
    }

    /** Runs {@code fsp get} as a process and kills it (SIGKILL) once it has journaled some blocks; the journal's path. */
    private Path killMidway(StripeRig rig, Path dest) throws Exception {
        return killMidway(rig, "/big.bin", dest);
    }

    private Path killMidway(StripeRig rig, String remote, Path dest, String... moreOptions) throws Exception {
        Path journal = journal(dest);
        Process client = startGet(rig, remote, dest, dir.resolve("first-run.log"), moreOptions);
        client.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        assertTrue(Files.exists(journal), "the journal survives the kill");
        assertLockFree(dest);
        return journal;
    }

    /**
     * Soon nobody holds the destination's lock: its file is left unlocked (the kernel freed the killed process's
     * lock) or removed (through the agent, the killed launcher's command is cancelled and lets go of it itself).
     */
    private static void assertLockFree(Path dest) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (FileChannel ch = FileChannel.open(lock(dest), StandardOpenOption.WRITE);
                 FileLock held = ch.tryLock()) {
                if (held != null) {
                    return;
                }
            } catch (NoSuchFileException removed) {
                return;
            }
            assertTrue(System.nanoTime() < deadline, "the killed run's lock is still held");
            Thread.sleep(50);
        }
    }

    /** Runs {@code fsp get} as a process and returns it once it has journaled some blocks, long before its end. */
    private Process startGet(StripeRig rig, String remote, Path dest, Path log, String... moreOptions) throws Exception {
        return startGet(rig, remote, dest, journal(dest), log, moreOptions);
    }

    private Process startGet(StripeRig rig, String remote, Path dest, Path journal, Path log, String... moreOptions)
            throws Exception {
        Process client = getProcess(rig, remote, dest, log, moreOptions).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!(Files.exists(journal) && Files.size(journal) > 2000) && client.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(client.isAlive(), "the run ended before it journaled some blocks: " + Files.readString(log));
        return client;
    }

    private static ProcessBuilder getProcess(StripeRig rig, String remote, Path dest, Path log, String... moreOptions) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("get",
                "fsp://" + StripeRig.USER + "@127.0.0.1:" + rig.port() + remote, "-o", dest.toString(),
                "--trust", rig.server().fingerprint().toString(), "--block-size", "64k", "--json"));
        args.addAll(java.util.List.of(moreOptions));
        ProcessBuilder pb = FspCommand.process(args);
        pb.environment().put("FSP_PASSWORD", StripeRig.PASSWORD);
        return pb.redirectErrorStream(true).redirectOutput(log.toFile());
    }

    private static Path journal(Path dest) {
        return dest.resolveSibling("." + dest.getFileName() + ".fsp-journal");
    }

    private static Path lock(Path dest) {
        return dest.resolveSibling("." + dest.getFileName() + ".fsp-lock");
    }
}

package io.fsp.server.stripe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.block.stage.BlockPipeline;
import io.fsp.block.stage.SealedBlock;
import io.fsp.extension.ByteRange;
import io.fsp.extension.TransferOptions;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.UserRoot;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StripedTransferTest {
    @TempDir
    Path dir;

    private static byte[] bytes(SealedBlock sealed) {
        try {
            return ByteBufUtil.getBytes(sealed.block().content());
        } finally {
            sealed.block().content().release();
        }
    }

    /** Seals block 0 as the striping engine does and records its digest as announced. */
    private static byte[] sealAndAnnounce(StripedTransfer t) throws IOException {
        BlockPlan.Block b = t.plan().block(0);
        try (StripedTransfer.Sources sources = t.sources();
             BlockPipeline pipeline = t.pipeline(0)) {
            ByteBuf data = t.read(sources, b, 0);
            SealedBlock sealed;
            try {
                sealed = pipeline.seal(data, b.offset(), t.files().get(0).name(), b.endOfFile());
            } finally {
                data.release();
            }
            assertTrue(t.sealed(0, sealed.digest()));
            return bytes(sealed);
        }
    }

    private static PlanBudget.Charge unlimited() {
        return new PlanBudget(Long.MAX_VALUE).charge("alice");
    }

    private static StripedTransfer plan(Path file, TransferOptions options, SecureRandom random) throws IOException {
        return StripedTransfer.plan(new UserRoot(file.getParent()), FtpPath.ROOT.resolve(file.getFileName().toString()),
                options, Integer.MAX_VALUE, random);
    }

    /** The bytes of every block of the plan, sealed once. */
    private static long sealedBytes(StripedTransfer t) throws IOException {
        long sum = 0;
        for (long seq = 0; seq < t.plan().count(); seq++) {
            sum += bytes(t.reseal(seq)).length;
        }
        return sum;
    }

    @Test
    void theSpaceDeclaredToARelayIsEveryBlockSealedOnceAtItsLargest() throws Exception {
        byte[] random = new byte[50_000];
        new java.util.Random(5).nextBytes(random);
        Path file = Files.write(dir.resolve("a.bin"), random);
        StripedTransfer one = plan(file, TransferOptions.DEFAULTS.with("block-size", "4k"),
                new SecureRandom());
        assertEquals(sealedBytes(one), one.maxBytesPerRelay(), "encrypted, one name: exact");

        Path tree = Files.createDirectories(dir.resolve("tree/a-longer-directory-name"));
        Files.write(tree.resolve("b.bin"), random);
        Files.write(dir.resolve("tree/c"), new byte[10_000]); // compresses
        Files.write(dir.resolve("tree/empty"), new byte[0]);
        for (String cipher : new String[] {"aes-256-gcm", "none"}) {
            StripedTransfer t = plan(dir.resolve("tree"), TransferOptions.DEFAULTS.with("block-size", "4k")
                    .with("cipher", cipher).with("compression", "zstd").with("checksum", "sha256"), new SecureRandom());
            long sealed = sealedBytes(t);
            assertTrue(sealed <= t.maxBytesPerRelay(), cipher + ": sealed " + sealed + ", declared " + t.maxBytesPerRelay());
        }
    }

    /**
     * FPRI: the files named come first, in the order named (a directory's files in name order), then every other
     * file in name order; the block numbers follow the files. A name matching nothing, or a file named twice (also
     * inside a directory named later), changes nothing more.
     */
    @Test
    void filesNamedByPrioritiesComeFirstInTheirOrder() throws Exception {
        Path tree = Files.createDirectories(dir.resolve("tree"));
        for (String name : List.of("a.txt", "b/x.txt", "b/y.txt", "b/z/deep.txt", "b-c.txt", "c.txt", "d/e.txt", "d/f.txt",
                "ba.txt")) {
            Path f = tree.resolve(name);
            Files.createDirectories(f.getParent());
            Files.write(f, new byte[5000]);
        }
        List<String> all = names(StripedTransfer.plan(new UserRoot(dir), FtpPath.ROOT.resolve("tree"),
                TransferOptions.DEFAULTS.with("block-size", "4k"), 1000, new SecureRandom(), List.of(), unlimited()));
        assertEquals(List.of("a.txt", "b-c.txt", "b/x.txt", "b/y.txt", "b/z/deep.txt", "ba.txt", "c.txt", "d/e.txt",
                "d/f.txt"), all, "name order without priorities");
        StripedTransfer t = StripedTransfer.plan(new UserRoot(dir), FtpPath.ROOT.resolve("tree"),
                TransferOptions.DEFAULTS.with("block-size", "4k"), 1000, new SecureRandom(),
                List.of("d/f.txt", "nothing", "b", "c.txt", "b/y.txt", "d/f.txt", "b/z"), unlimited());
        assertEquals(List.of("d/f.txt", "b/x.txt", "b/y.txt", "b/z/deep.txt", "c.txt", "a.txt", "b-c.txt", "ba.txt",
                "d/e.txt"), names(t));
        for (int f = 0; f < t.files().size(); f++) {
            assertEquals(f, t.plan().block(2 * f).file(), "blocks numbered in the new file order");
        }
        assertEquals(List.of("b", "b/z", "d"), t.directories(), "directories stay in name order");
    }

    /**
     * A tree's entries in the order of {@code Files.walk(...).sorted()}, whatever the names: a separator sorts
     * after '-' and '.', bytes above 0x7f after ASCII, a character outside the BMP after every other (as its UTF-8
     * bytes do, where String.compareTo would put it before U+E000-U+FFFF).
     */
    @Test
    void entriesAreInThePathsOrder() {
        List<String> names = new java.util.ArrayList<>(List.of("a", "a/b", "a.b", "a-c/x", "a-c", "a/b/c", "ab", "A",
                "é", "é/z", "日本", "\uFF5E", "\uD834\uDD1E", "\uE000x", "a b", "a/0", "~", "z/\uD834\uDD1E/q"));
        java.util.Collections.shuffle(names, new java.util.Random(3));
        List<StripedTransfer.Found> found = new java.util.ArrayList<>();
        for (String n : names) {
            found.add(new StripedTransfer.Found(n, null, 0, 0)); // the order needs names only
        }
        List<String> expected = names.stream().map(Path::of).sorted().map(Path::toString).toList();
        assertEquals(expected, StripedTransfer.inPathOrder(found).stream().map(StripedTransfer.Found::name).toList());
        assertTrue(expected.indexOf("\uD834\uDD1E") > expected.indexOf("\uFF5E"), "the comparison is the paths' own");
    }

    /**
     * Planning a tree takes a share of the server's budget for each file and directory it finds, and stops as soon
     * as the budget is spent, before it holds the whole tree.
     */
    @Test
    void planningTakesItsShareOfTheBudget() throws Exception {
        Path tree = Files.createDirectories(dir.resolve("budget"));
        for (int d = 0; d < 10; d++) {
            Path sub = Files.createDirectories(tree.resolve("d" + d));
            for (int f = 0; f < 100; f++) {
                Files.write(sub.resolve("f" + f), new byte[] {(byte) f});
            }
        }
        PlanBudget budget = new PlanBudget(2048); // a user's share: 1024, four steps
        PlanBudget.Charge charge = budget.charge("alice");
        StripedTransfer t = StripedTransfer.plan(new UserRoot(dir), FtpPath.ROOT.resolve("budget"), TransferOptions.DEFAULTS,
                1 << 20, new SecureRandom(), List.of(), charge);
        assertEquals(1000, t.files().size());
        long entries = charge.entries();
        assertTrue(entries >= 1010 && entries < 1010 + PlanBudget.STEP, "charged " + entries + " for 1,010 entries");
        assertEquals(entries, budget.held());

        PlanBudget.Charge again = budget.charge("alice");
        PlanBudgetExceededException share = assertThrows(PlanBudgetExceededException.class, () ->
                StripedTransfer.plan(new UserRoot(dir), FtpPath.ROOT.resolve("budget"), TransferOptions.DEFAULTS,
                        1 << 20, new SecureRandom(), List.of(), again));
        assertTrue(share.getMessage().contains("the transfers of user alice hold"), share.getMessage());
        again.close();
        PlanBudget.Charge bob = budget.charge("bob");
        StripedTransfer.plan(new UserRoot(dir), FtpPath.ROOT.resolve("budget"), TransferOptions.DEFAULTS, 1 << 20,
                new SecureRandom(), List.of(), bob);
        PlanBudget.Charge second = budget.charge("carol");
        PlanBudgetExceededException refused = assertThrows(PlanBudgetExceededException.class, () ->
                StripedTransfer.plan(new UserRoot(dir), FtpPath.ROOT.resolve("budget"), TransferOptions.DEFAULTS,
                        1 << 20, new SecureRandom(), List.of(), second));
        assertTrue(refused.getMessage().contains("max-planned 2048"), refused.getMessage());
        second.close();
        bob.close();
        assertEquals(entries, budget.held(), "a refused plan keeps nothing");
        charge.close();
        assertEquals(0, budget.held());
    }

    @Test
    void prioritiesCostALookupPerNameAndPerFile() {
        List<StripedTransfer.SourceFile> files = new java.util.ArrayList<>();
        for (int i = 0; i < 200_000; i++) {
            files.add(new StripedTransfer.SourceFile(String.format("big/f%06d", i), dir, null, 1, 0));
        }
        List<String> priorities = java.util.Collections.nCopies(StripeSession.MAX_PRIORITIES, "big");
        long start = System.nanoTime();
        List<StripedTransfer.SourceFile> ordered = StripedTransfer.prioritized(files, priorities);
        double seconds = (System.nanoTime() - start) / 1e9;
        assertEquals(files, ordered, "one directory named again and again: its files once, in name order");
        assertTrue(seconds < 5, "ordered in " + seconds + " s");
    }

    @Test
    void aSessionHoldsAtMostTenThousandPrioritiesForTheNextFret() {
        StripeSession session = new StripeSession();
        for (int i = 1; i <= StripeSession.MAX_PRIORITIES; i++) {
            assertEquals(i, session.prioritize("f" + i));
        }
        assertEquals("FPRI: more than 10000 names for one FRET (expected: <= 10000)",
                assertThrows(IllegalArgumentException.class, () -> session.prioritize("one-more")).getMessage());
        assertEquals(StripeSession.MAX_PRIORITIES, session.takePriorities().size());
        assertEquals(List.of(), session.takePriorities(), "the FRET consumed them");
        assertEquals(1, session.prioritize("again"));
    }

    @Test
    void aSessionHoldsAtMostAMegabyteOfPriorityNames() {
        StripeSession session = new StripeSession();
        String name = "n".repeat(4096);
        for (int i = 1; i <= StripeSession.MAX_PRIORITY_CHARS / 4096; i++) {
            assertEquals(i, session.prioritize(name));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> session.prioritize("x"));
        assertTrue(e.getMessage().startsWith("FPRI: names of more than 1048576 characters together"), e.getMessage());
        session.takePriorities();
        assertEquals(1, session.prioritize(name), "the FRET consumed them, and their characters");
    }

    private static List<String> names(StripedTransfer t) {
        return t.files().stream().map(StripedTransfer.SourceFile::name).toList();
    }

    @Test
    void resealOfAnUnchangedFileIsByteIdentical() throws Exception {
        Path file = Files.write(dir.resolve("a.bin"), new byte[100_000]);
        StripedTransfer t = plan(file, TransferOptions.DEFAULTS, new SecureRandom());
        byte[] first = sealAndAnnounce(t);
        assertArrayEquals(first, bytes(t.reseal(0)));
    }

    @Test
    void resealRefusesAFileThatChangedSinceItsBlockWasAnnounced() throws Exception {
        Path file = Files.write(dir.resolve("a.bin"), new byte[100_000]);
        StripedTransfer t = plan(file, TransferOptions.DEFAULTS, new SecureRandom());
        sealAndAnnounce(t);
        byte[] changed = new byte[100_000];
        changed[7] = 1;
        Files.write(file, changed);
        // Same key and sequence number would mean the same GCM nonce over different plaintext.
        assertThrows(IOException.class, () -> t.reseal(0));
    }

    @Test
    void theFirstSealingOfABlockHoldsEveryLaterOneToItsPlaintext() throws Exception {
        Path file = Files.write(dir.resolve("a.bin"), new byte[100_000]);
        StripedTransfer t = plan(file, TransferOptions.DEFAULTS, new SecureRandom());
        byte[] first = bytes(t.reseal(0)); // an origin re-fetch before the engine sealed it (a held block, say)
        assertArrayEquals(first, bytes(t.reseal(0)));
        byte[] changed = new byte[100_000];
        changed[7] = 1;
        Files.write(file, changed);
        assertThrows(IOException.class, () -> t.reseal(0));
    }

    @Test
    void blocksAResumingClientHoldsAreMarkedHeld() throws Exception {
        Path file = Files.write(dir.resolve("a.bin"), new byte[5 * 4096 + 10]);
        StripedTransfer t = plan(file, TransferOptions.DEFAULTS.with("block-size", "4k"), new SecureRandom());
        ResumeClaim claim = new ResumeClaim("ab".repeat(32));
        claim.add(0, List.of(new ByteRange(0, 4096), new ByteRange(8192, 12288)));
        claim.add(0, List.of(new ByteRange(12288, 16384))); // touches the one before: merged
        claim.add(0, List.of(new ByteRange(20480, 20489))); // one byte short of the last block
        assertEquals(3, t.hold(claim));
        assertTrue(t.held(0));
        assertFalse(t.held(1));
        assertTrue(t.held(2));
        assertTrue(t.held(3));
        assertFalse(t.held(4));
        assertFalse(t.held(5));
    }

    @Test
    void aClaimIsBounded() {
        ResumeClaim claim = new ResumeClaim("00".repeat(32));
        for (int i = 0; i < ResumeClaim.MAX_RANGES - 1; i++) {
            claim.add(1, List.of(new ByteRange(2L * i, 2L * i + 1)));
        }
        long past = 2L * ResumeClaim.MAX_RANGES;
        // a line that would pass the bound is refused whole: nothing of it is kept
        assertThrows(IllegalArgumentException.class, () -> claim.add(2, List.of(new ByteRange(0, 10), new ByteRange(20, 30))));
        assertFalse(claim.covers(2, 0, 10));
        claim.add(1, List.of(new ByteRange(past, past + 1)));
        assertTrue(claim.covers(1, past, 1));
        assertThrows(IllegalArgumentException.class, () -> claim.add(1, List.of(new ByteRange(0, 1))));
        assertThrows(IllegalArgumentException.class, () -> new ResumeClaim("not hex"));
        assertThrows(IllegalArgumentException.class, () -> new ResumeClaim("00".repeat(32)).add(-1, List.of(new ByteRange(0, 1))));
    }

    /**
     * A sub-directory swapped for a link to outside after the plan (by a local user, or by RNFR/RNTO): the
     * blocks read later, by the engine or an origin re-fetch, never come from outside.
     */
    @Test
    void blocksAreNeverReadThroughALinkSwappedInAfterThePlan() throws Exception {
        Path root = Files.createDirectories(dir.resolve("root"));
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.createDirectories(root.resolve("d/a"));
        Files.createDirectories(root.resolve("d/b"));
        Files.writeString(root.resolve("d/a/one.txt"), "inside one");
        Files.writeString(root.resolve("d/b/two.txt"), "inside two");
        Files.writeString(outside.resolve("two.txt"), "OUTSIDE!!!");
        StripedTransfer t = StripedTransfer.plan(new UserRoot(root), FtpPath.ROOT.resolve("d"),
                TransferOptions.DEFAULTS.with("cipher", "none"), Integer.MAX_VALUE, new SecureRandom());
        assertEquals(List.of("a/one.txt", "b/two.txt"), t.files().stream().map(StripedTransfer.SourceFile::name).toList());
        Files.move(root.resolve("d/b"), root.resolve("d/b.old"));
        Files.createSymbolicLink(root.resolve("d/b"), outside);
        assertEquals(2, t.plan().segments(t.plan().block(0)).size(), "both small files in block 0");
        assertThrows(IOException.class, () -> t.reseal(0));
        assertThrows(IOException.class, () -> openAndClose(t, 1));
        // The file itself replaced by another one under its name: refused too, the plan was made for the first.
        Files.delete(root.resolve("d/b"));
        Files.move(root.resolve("d/b.old"), root.resolve("d/b"));
        Files.move(root.resolve("d/b/two.txt"), root.resolve("d/b/old.txt"));
        Files.writeString(root.resolve("d/b/two.txt"), "inside 2!!");
        assertThrows(IOException.class, () -> openAndClose(t, 1));
        Files.move(root.resolve("d/b/old.txt"), root.resolve("d/b/two.txt"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        openAndClose(t, 1);
    }

    /** Opens file {@code index} as the striping engine does, from a walk of its own. */
    private static void openAndClose(StripedTransfer t, int index) throws IOException {
        try (StripedTransfer.Sources sources = t.sources()) {
            sources.open(index).close();
        }
    }
}

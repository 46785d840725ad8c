package io.fsp.client.verify;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Digest;
import io.fsp.client.write.PositionalWriter;
import io.fsp.client.journal.ResumeJournal;
import io.fsp.client.journal.TransferIdentity;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

@Timeout(60)
class FiverVerifierTest {
    private static final int BLOCK = 64 * 1024;

    @TempDir
    Path tmp;

    /** A generated tree: name to content, with sizes that are not multiples of the block size. */
    private static Map<String, byte[]> tree() {
        Random random = new Random(11);
        Map<String, byte[]> tree = new LinkedHashMap<>();
        int[] sizes = {0, 1, BLOCK - 1, BLOCK, 5 * BLOCK + 13, 3 * BLOCK};
        String[] names = {"empty", "one.bin", "a/almost.bin", "a/b/exact.bin", "ü/odd.bin", "big.bin"};
        for (int i = 0; i < sizes.length; i++) {
            byte[] b = new byte[sizes[i]];
            random.nextBytes(b);
            tree.put(names[i], b);
        }
        return tree;
    }

    private record Block(BlockRef ref, byte[] plaintext) {
    }

    private static List<Block> blocks(Map<String, byte[]> tree) {
        List<Block> out = new ArrayList<>();
        tree.forEach((name, content) -> {
            for (int off = 0; off < content.length; off += BLOCK) {
                int len = Math.min(BLOCK, content.length - off);
                byte[] part = new byte[len];
                System.arraycopy(content, off, part, 0, len);
                out.add(new Block(new BlockRef(name, off, len), part));
            }
        });
        return out;
    }

    static byte[] sha256(byte[] b) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(b);
    }

    /** Submits every block (shuffled) as a direct buffer, as a collector would after decryption. */
    private static Map<BlockRef, BlockVerdict> run(FiverVerifier verifier, List<Block> blocks, Map<BlockRef, byte[]> expected,
                                                  Map<BlockRef, AtomicInteger> releases) throws Exception {
        List<CompletableFuture<BlockVerdict>> futures = new ArrayList<>();
        for (Block b : blocks) {
            // Page-aligned, so that a writer with O_DIRECT writes takes that path for aligned blocks.
            ByteBuffer direct = ByteBuffer.allocateDirect(b.plaintext.length + 8192).alignedSlice(4096)
                    .limit(b.plaintext.length).slice().put(b.plaintext).flip();
            AtomicInteger released = releases.computeIfAbsent(b.ref, r -> new AtomicInteger());
            futures.add(verifier.submit(b.ref, direct, expected.get(b.ref), released::incrementAndGet));
        }
        verifier.drain();
        Map<BlockRef, BlockVerdict> out = new HashMap<>();
        for (CompletableFuture<BlockVerdict> f : futures) {
            BlockVerdict v = f.getNow(null);
            out.put(v.block(), v);
        }
        return out;
    }

    @ParameterizedTest
    @EnumSource(VerificationMode.class)
    void writesTreeByteIdenticalAndVerifiesEveryBlock(VerificationMode mode) throws Exception {
        Path dest = tmp.resolve("dest");
        if (mode == VerificationMode.RIVA) {
            assumeTrue(directIoWorks(tmp), "O_DIRECT is not supported on the file system of " + tmp + ": riva cannot run here");
        }
        Map<String, byte[]> tree = tree();
        List<Block> blocks = blocks(tree);
        Collections.shuffle(blocks, new Random(5));
        Map<BlockRef, byte[]> expected = new HashMap<>();
        for (Block b : blocks) {
            expected.put(b.ref, sha256(b.plaintext));
        }
        Map<BlockRef, AtomicInteger> releases = new ConcurrentHashMap<>();
        Map<BlockRef, BlockVerdict> verdicts;
        VerifierConfig config = VerifierConfig.defaults().withMode(mode).withHashThreads(2).withWriterThreads(2).withQueueDepth(4);
        try (PositionalWriter writer = new PositionalWriter(dest, mode != VerificationMode.OFF)) {
            for (Map.Entry<String, byte[]> f : tree.entrySet()) {
                writer.prepareFile(f.getKey(), f.getValue().length);
            }
            try (FiverVerifier verifier = new FiverVerifier(writer, config)) {
                verdicts = run(verifier, blocks, expected, releases);
            }
        }
        BlockVerdict.Outcome wanted = mode == VerificationMode.OFF ? BlockVerdict.Outcome.WRITTEN : BlockVerdict.Outcome.VERIFIED;
        assertEquals(blocks.size(), verdicts.size());
        for (BlockVerdict v : verdicts.values()) {
            assertEquals(wanted, v.outcome(), v.toString());
            if (mode != VerificationMode.OFF) {
                assertArrayEquals(expected.get(v.block()), v.actual());
            }
        }
        releases.forEach((ref, n) -> assertEquals(1, n.get(), "buffer of " + ref + " released exactly once"));
        for (Map.Entry<String, byte[]> f : tree.entrySet()) {
            assertArrayEquals(f.getValue(), Files.readAllBytes(dest.resolve(f.getKey())), f.getKey());
        }
    }

    /**
     * Blocks that carry many small files (parts in several files; a flush group of hundreds of files is synced with
     * one syncfs): every file byte-identical, every block verified, in RIVA read back part by part; and a part
     * damaged on disk afterwards makes its block no longer match.
     */
    @ParameterizedTest
    @EnumSource(VerificationMode.class)
    void blocksThatCarrySeveralFilesAreWrittenPartByPart(VerificationMode mode) throws Exception {
        Path dest = tmp.resolve("dest");
        if (mode == VerificationMode.RIVA) {
            assumeTrue(directIoWorks(tmp), "O_DIRECT is not supported on the file system of " + tmp + ": riva cannot run here");
        }
        Random random = new Random(3);
        Map<String, byte[]> tree = new LinkedHashMap<>();
        for (int i = 0; i < 600; i++) {
            byte[] b = new byte[random.nextInt(3000)];
            random.nextBytes(b);
            tree.put("d" + i % 7 + "/f" + i, b);
        }
        List<Block> blocks = new ArrayList<>();
        List<BlockRef.Part> parts = new ArrayList<>();
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        for (Map.Entry<String, byte[]> f : tree.entrySet()) {
            if (f.getValue().length > 0) {
                parts.add(new BlockRef.Part(f.getKey(), 0, f.getValue().length));
                bytes.writeBytes(f.getValue());
            }
            if (bytes.size() > BLOCK - 3000) {
                blocks.add(new Block(new BlockRef(parts.get(0).path(), 0, bytes.size(), parts), bytes.toByteArray()));
                parts = new ArrayList<>();
                bytes.reset();
            }
        }
        blocks.add(new Block(new BlockRef(parts.get(0).path(), 0, bytes.size(), parts), bytes.toByteArray()));
        assertTrue(blocks.size() > 5 && blocks.size() < 40, blocks.size() + " blocks");
        Map<BlockRef, byte[]> expected = new HashMap<>();
        for (Block b : blocks) {
            expected.put(b.ref, sha256(b.plaintext));
        }
        VerifierConfig config = VerifierConfig.defaults().withMode(mode).withHashThreads(2).withWriterThreads(4).withQueueDepth(64);
        try (PositionalWriter writer = new PositionalWriter(dest, mode != VerificationMode.OFF)) {
            for (Map.Entry<String, byte[]> f : tree.entrySet()) {
                writer.prepareFile(f.getKey(), f.getValue().length);
            }
            try (FiverVerifier verifier = new FiverVerifier(writer, config)) {
                Map<BlockRef, BlockVerdict> verdicts = run(verifier, blocks, expected, new ConcurrentHashMap<>());
                BlockVerdict.Outcome wanted = mode == VerificationMode.OFF ? BlockVerdict.Outcome.WRITTEN : BlockVerdict.Outcome.VERIFIED;
                for (BlockVerdict v : verdicts.values()) {
                    assertEquals(wanted, v.outcome(), v.toString());
                }
                for (Map.Entry<String, byte[]> f : tree.entrySet()) {
                    assertArrayEquals(f.getValue(), Files.readAllBytes(dest.resolve(f.getKey())), f.getKey());
                }
                if (mode == VerificationMode.RIVA) {
                    Block b = blocks.get(2);
                    assertTrue(verifier.matchesOnDisk(b.ref, expected.get(b.ref)));
                    BlockRef.Part third = b.ref.parts().get(2);
                    byte[] content = Files.readAllBytes(dest.resolve(third.path()));
                    content[content.length / 2] ^= 1;
                    Files.write(dest.resolve(third.path()), content);
                    assertFalse(verifier.matchesOnDisk(b.ref, expected.get(b.ref)), "a part damaged on disk");
                }
            }
        }
    }

    @Test
    void corruptedBufferIsAMismatchNeverVerifiedAndNeverJournaled() throws Exception {
        Map<String, byte[]> tree = Map.of("f.bin", new byte[4 * BLOCK]);
        new Random(1).nextBytes(tree.get("f.bin"));
        List<Block> blocks = blocks(tree);
        Map<BlockRef, byte[]> expected = new HashMap<>();
        for (Block b : blocks) {
            expected.put(b.ref, sha256(b.plaintext));
        }
        // A relay flipped one bit of block 2 after the server digested it.
        Block bad = blocks.get(2);
        byte[] flipped = bad.plaintext.clone();
        flipped[1234] ^= 0x08;
        List<Block> received = new ArrayList<>(blocks);
        received.set(2, new Block(bad.ref, flipped));

        List<VerificationEvent> events = Collections.synchronizedList(new ArrayList<>());
        Path dest = tmp.resolve("dest");
        TransferIdentity id = new TransferIdentity("s", "/f.bin", 4L * BLOCK, 0, "", "fiver");
        try (PositionalWriter writer = new PositionalWriter(dest);
             ResumeJournal journal = ResumeJournal.open(tmp.resolve("j"), id)) {
            Map<BlockRef, BlockVerdict> verdicts;
            try (FiverVerifier verifier = new FiverVerifier(writer, VerifierConfig.defaults(), journal, events::add)) {
                verdicts = run(verifier, received, expected, new ConcurrentHashMap<>());
                BlockVerdict v = verdicts.get(bad.ref);
                assertEquals(BlockVerdict.Outcome.MISMATCH, v.outcome());
                assertTrue(v.cause().contains("sha256 of the bytes received differs"), v.cause());
                assertArrayEquals(sha256(flipped), v.actual());
                assertFalse(journal.isVerified(bad.ref.path(), bad.ref.offset(), bad.ref.length(), expected.get(bad.ref)));
                for (Block b : blocks) {
                    if (b != bad) {
                        assertTrue(verdicts.get(b.ref).verified(), b.ref.toString());
                        assertTrue(journal.isVerified(b.ref.path(), b.ref.offset(), b.ref.length(), expected.get(b.ref)));
                    }
                }
                // The collector fetches the block again from elsewhere; this time it verifies.
                ByteBuf again = Unpooled.directBuffer(BLOCK).writeBytes(bad.plaintext);
                BlockVerdict retry = verifier.submit(bad.ref, again, expected.get(bad.ref)).get();
                assertTrue(retry.verified(), retry.toString());
                assertEquals(0, again.refCnt(), "the verifier releases the Netty buffer");
                assertTrue(journal.isVerified(bad.ref.path(), bad.ref.offset(), bad.ref.length(), expected.get(bad.ref)));
            }
        }
        long verifiedBad = events.stream().filter(e -> e instanceof VerificationEvent.Verdict v
                && v.verdict().block().equals(bad.ref) && v.verdict().verified()).count();
        assertEquals(1, verifiedBad, "only the refetched copy is reported verified");
        assertArrayEquals(tree.get("f.bin"), Files.readAllBytes(dest.resolve("f.bin")));
    }

    /**
     * Power-loss safety (paper 002, Observation 2): for every verdict there must be, before it, a
     * flush of the block's file that came after the block's write.
     */
    @ParameterizedTest
    @EnumSource(value = VerificationMode.class, names = {"FIVER", "OFF", "RIVA"})
    void noVerdictPrecedesTheFlushThatCoversItsBlock(VerificationMode mode) throws Exception {
        if (mode == VerificationMode.RIVA) {
            assumeTrue(directIoWorks(tmp), "O_DIRECT is not supported on the file system of " + tmp + ": riva cannot run here");
        }
        Map<String, byte[]> tree = new LinkedHashMap<>();
        Random random = new Random(9);
        for (String name : List.of("x.bin", "y/y.bin", "z/z/z.bin")) {
            byte[] b = new byte[40 * BLOCK + 99];
            random.nextBytes(b);
            tree.put(name, b);
        }
        List<Block> blocks = blocks(tree);
        Collections.shuffle(blocks, random);
        Map<BlockRef, byte[]> expected = new HashMap<>();
        for (Block b : blocks) {
            expected.put(b.ref, sha256(b.plaintext));
        }
        List<VerificationEvent> events = Collections.synchronizedList(new ArrayList<>());
        VerifierConfig config = VerifierConfig.defaults().withMode(mode).withWriterThreads(3).withHashThreads(2);
        // O_DIRECT writes for the aligned blocks, page cache for each file's odd tail.
        try (PositionalWriter writer = new PositionalWriter(tmp.resolve("dest"), true);
             FiverVerifier verifier = new FiverVerifier(writer, config, null, events::add)) {
            run(verifier, blocks, expected, new ConcurrentHashMap<>());
        }
        List<VerificationEvent> log = List.copyOf(events);
        Map<BlockRef, Integer> writtenAt = new HashMap<>();
        int verdicts = 0;
        int flushes = 0;
        for (int i = 0; i < log.size(); i++) {
            VerificationEvent e = log.get(i);
            if (e instanceof VerificationEvent.Written w) {
                writtenAt.put(w.block(), i);
            } else if (e instanceof VerificationEvent.Flushed) {
                flushes++;
            } else if (e instanceof VerificationEvent.Verdict v) {
                verdicts++;
                BlockRef ref = v.verdict().block();
                Integer w = writtenAt.get(ref);
                assertTrue(w != null, "verdict for " + ref + " before its write");
                boolean covered = false;
                for (int k = w + 1; k < i && !covered; k++) {
                    covered = log.get(k) instanceof VerificationEvent.Flushed f && f.path().equals(ref.path());
                }
                assertTrue(covered, "verdict for " + ref + " at event " + i + " with no flush of its file after its write at " + w);
            }
        }
        assertEquals(blocks.size(), verdicts);
        assertTrue(flushes >= tree.size(), "at least one flush per file, saw " + flushes);
    }

    @Test
    void buffersAreReleasedOnlyAfterBothWriteAndHashAndNeverMoreThanQueueDepthAreHeld() throws Exception {
        byte[] content = new byte[64 * BLOCK];
        new Random(2).nextBytes(content);
        List<Block> blocks = blocks(Map.of("f", content));
        Set<BlockRef> written = ConcurrentHashMap.newKeySet();
        Set<BlockRef> hashed = ConcurrentHashMap.newKeySet();
        List<String> violations = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger held = new AtomicInteger();
        AtomicInteger maxHeld = new AtomicInteger();
        int depth = 3;
        VerifierConfig config = VerifierConfig.defaults().withQueueDepth(depth).withHashThreads(2).withWriterThreads(2);
        try (PositionalWriter writer = new PositionalWriter(tmp.resolve("dest"));
             FiverVerifier verifier = new FiverVerifier(writer, config, null, e -> {
                 if (e instanceof VerificationEvent.Written w) {
                     written.add(w.block());
                 } else if (e instanceof VerificationEvent.Hashed h) {
                     hashed.add(h.block());
                 }
             })) {
            for (Block b : blocks) {
                maxHeld.accumulateAndGet(held.incrementAndGet(), Math::max);
                verifier.submit(b.ref, ByteBuffer.wrap(b.plaintext), sha256(b.plaintext), () -> {
                    if (!written.contains(b.ref) || !hashed.contains(b.ref)) {
                        violations.add(b.ref + " released before write and hash were done");
                    }
                    held.decrementAndGet();
                });
            }
            verifier.drain();
        }
        assertEquals(List.of(), violations);
        assertTrue(maxHeld.get() <= depth + 1, "at most queueDepth buffers held (+1 being submitted), saw " + maxHeld.get());
        assertEquals(0, held.get());
    }

    @Test
    void blockNamedOutsideTheRootFailsAndIsReleased() throws Exception {
        AtomicInteger released = new AtomicInteger();
        try (PositionalWriter writer = new PositionalWriter(tmp.resolve("dest"));
             FiverVerifier verifier = new FiverVerifier(writer, VerifierConfig.defaults())) {
            byte[] data = {1, 2, 3};
            BlockVerdict v = verifier.submit(new BlockRef("../escape.bin", 0, 3), ByteBuffer.wrap(data), sha256(data),
                    released::incrementAndGet).get();
            assertEquals(BlockVerdict.Outcome.FAILED, v.outcome());
            assertTrue(v.cause().startsWith("write failed: path \"../escape.bin\""), v.cause());
        }
        assertEquals(1, released.get());
        assertFalse(Files.exists(tmp.resolve("escape.bin")));
    }

    @Test
    void acceptsTheAnnouncedDigestOfItsAlgorithmAndRefusesAnother() throws Exception {
        byte[] data = new byte[1000];
        new Random(4).nextBytes(data);
        VerifierConfig config = VerifierConfig.defaults().withAlgorithm(ChecksumAlgorithm.BLAKE3);
        try (PositionalWriter writer = new PositionalWriter(tmp.resolve("dest"));
             FiverVerifier verifier = new FiverVerifier(writer, config)) {
            Digest blake3 = ChecksumAlgorithm.BLAKE3.newHasher().update(data).finish();
            ByteBuf first = Unpooled.wrappedBuffer(data.clone());
            assertTrue(verifier.submit(new BlockRef("b3.bin", 0, 1000), first, blake3).get().verified());
            assertEquals(0, first.refCnt());

            Digest sha = ChecksumAlgorithm.SHA256.newHasher().update(data).finish();
            ByteBuf second = Unpooled.wrappedBuffer(data.clone());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> verifier.submit(new BlockRef("b3.bin", 0, 1000), second, sha));
            assertEquals("digest: sha256 (expected: blake3, the algorithm the verifier was configured with)", e.getMessage());
            assertEquals(0, second.refCnt(), "a refused buffer is released too");
        }
        assertArrayEquals(data, Files.readAllBytes(tmp.resolve("dest/b3.bin")));
    }

    @Test
    void trySubmitNeverBlocksAndOnCapacitySaysWhenToTryAgain() throws Exception {
        byte[] data = new byte[BLOCK];
        new Random(6).nextBytes(data);
        Digest digest = ChecksumAlgorithm.SHA256.newHasher().update(data).finish();
        java.util.concurrent.CountDownLatch writeMayProceed = new java.util.concurrent.CountDownLatch(1);
        VerifierConfig config = VerifierConfig.defaults().withQueueDepth(1);
        try (PositionalWriter writer = new PositionalWriter(tmp.resolve("dest"));
             FiverVerifier verifier = new FiverVerifier(writer, config, null, e -> {
                 if (e instanceof VerificationEvent.Written) {
                     try {
                         writeMayProceed.await(); // holds the only buffer slot
                     } catch (InterruptedException ie) {
                         Thread.currentThread().interrupt();
                     }
                 }
             })) {
            CompletableFuture<BlockVerdict> first = verifier.trySubmit(new BlockRef("f", 0, BLOCK), Unpooled.wrappedBuffer(data.clone()), digest);
            assertTrue(first != null);
            ByteBuf second = Unpooled.wrappedBuffer(data.clone());
            assertEquals(null, verifier.trySubmit(new BlockRef("f", BLOCK, BLOCK), second, digest), "no slot: refused at once");
            assertEquals(1, second.refCnt(), "a refused buffer stays the caller's");
            CompletableFuture<Void> capacity = new CompletableFuture<>();
            verifier.onCapacity(() -> capacity.complete(null));
            assertFalse(capacity.isDone());
            writeMayProceed.countDown();
            capacity.get();
            CompletableFuture<BlockVerdict> retried = verifier.trySubmit(new BlockRef("f", BLOCK, BLOCK), second, digest);
            assertTrue(retried != null);
            assertTrue(first.get().verified());
            assertTrue(retried.get().verified());
            assertEquals(0, second.refCnt());
        }
    }

    static boolean directIoWorks(Path dir) {
        try {
            Path probe = Files.write(dir.resolve("direct-probe"), new byte[4096]);
            try (RivaVerifier riva = new RivaVerifier()) {
                riva.hashFromDisk(probe, 0, 4096, ChecksumAlgorithm.SHA256.newHasher());
            } finally {
                Files.delete(probe);
            }
            return true;
        } catch (Exception e) {
            return false;
        }
    }
}

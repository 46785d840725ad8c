package io.fsp.server.stripe;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Digest;
import io.fsp.extension.TransferOptions;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.UserRoot;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BlockPlanTest {
    private static final long TIB = 1L << 40;

    @TempDir
    Path dir;

    /** Every block of the plan is the block a walk through the files, block by block, finds at that number. */
    @Test
    void numbersBlocksAsAWalkThroughTheFilesDoes() throws Exception {
        Random random = new Random(12);
        for (int round = 0; round < 200; round++) {
            int blockSize = 1 + random.nextInt(20);
            List<Long> sizes = new ArrayList<>();
            for (int f = random.nextInt(8); f > 0; f--) {
                sizes.add(random.nextInt(4) == 0 ? 0L : (long) random.nextInt(100)); // empty files among them
            }
            List<BlockPlan.Block> walked = new ArrayList<>();
            for (int f = 0; f < sizes.size(); f++) {
                for (long off = 0; off < sizes.get(f); off += blockSize) {
                    int len = (int) Math.min(blockSize, sizes.get(f) - off);
                    walked.add(new BlockPlan.Block(walked.size(), f, off, len, off + len == sizes.get(f)));
                }
            }
            BlockPlan plan = new BlockPlan(sizes, blockSize, Long.MAX_VALUE);
            assertEquals(walked.size(), plan.count(), plan.toString());
            for (BlockPlan.Block b : walked) {
                assertEquals(b, plan.block(b.seq()), sizes + " / " + blockSize);
            }
            for (int f = 0; f < sizes.size(); f++) {
                int file = f;
                assertEquals(walked.stream().filter(b -> b.file() == file).count(), plan.countOf(f));
            }
            assertThrows(IndexOutOfBoundsException.class, () -> plan.block(plan.count()));
            assertThrows(IndexOutOfBoundsException.class, () -> plan.block(-1));
        }
    }

    @Test
    void theLastBlockOfAHugeFileIsWhereItShouldBe() throws Exception {
        BlockPlan plan = new BlockPlan(List.of(10L, TIB + 1, 0L, 5000L), 4096, Long.MAX_VALUE);
        assertEquals(1 + (TIB / 4096 + 1) + 2, plan.count());
        assertEquals(new BlockPlan.Block(TIB / 4096 + 1, 1, TIB, 1, true), plan.block(TIB / 4096 + 1));
        assertEquals(new BlockPlan.Block(TIB / 4096 + 3, 3, 4096, 904, true), plan.block(plan.count() - 1));
    }

    @Test
    void aPlanOverTheLimitIsRefusedWithTheCountAndTheLimit() {
        TransferTooLargeException e = assertThrows(TransferTooLargeException.class,
                () -> new BlockPlan(List.of(TIB), 4096, 1 << 20));
        assertEquals("blocks: 268435456 of 4096 bytes (expected: <= 1048576, the server's max-blocks-per-transfer;"
                + " use a larger block-size)", e.getMessage());
        assertEquals(1 << 20, assertDoesNotThrow(() -> new BlockPlan(List.of(TIB), 1 << 20, 1 << 20)).count());
    }

    /**
     * A 1 TiB sparse file (no disk used) cut into 4 KiB blocks: refused by the limit, and under a limit that
     * admits it, planned without anything per block (2^28 blocks; one object per block was gigabytes).
     */
    @Test
    void aHugeSparseFileIsPlannedInMemoryIndependentOfItsBlockCount() throws Exception {
        Path file = dir.resolve("sparse.bin");
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(TIB);
        }
        UserRoot root = new UserRoot(dir);
        TransferOptions options = TransferOptions.DEFAULTS.with("block-size", "4k");
        FtpPath path = FtpPath.ROOT.resolve("sparse.bin");
        java.nio.file.Files.write(dir.resolve("small.bin"), new byte[10_000]);
        StripedTransfer.plan(root, FtpPath.ROOT.resolve("small.bin"), options, 1 << 20, new SecureRandom()); // classes loaded
        long refusing = 0;
        TransferTooLargeException refused = null;
        for (int i = 0; i < 2; i++) { // the second time, with the exception's classes loaded
            refused = null;
            long before = allocatedBytes();
            try {
                StripedTransfer.plan(root, path, options, 1 << 20, new SecureRandom());
            } catch (TransferTooLargeException e) {
                refused = e;
            }
            refusing = allocatedBytes() - before;
        }
        assertNotNull(refused, "a plan of 2^28 blocks over a limit of 2^20");
        assertTrue(refused.getMessage().contains("268435456") && refused.getMessage().contains("max-blocks-per-transfer"),
                refused.getMessage());

        long before = allocatedBytes();
        StripedTransfer t = StripedTransfer.plan(root, path, options, Integer.MAX_VALUE, new SecureRandom());
        long planning = allocatedBytes() - before;
        assertEquals(TIB / 4096, t.plan().count());
        assertEquals(new BlockPlan.Block(TIB / 4096 - 1, 0, TIB - 4096, 4096, true), t.plan().block(TIB / 4096 - 1));
        assertFalse(t.held(TIB / 4096 - 1));
        // Planning and refusing cost what any small plan does (a key, a directory handle, a few objects).
        assertTrue(refusing < 256 << 10, "refusing allocated " + refusing + " bytes");
        assertTrue(planning < 256 << 10, "planning 2^28 blocks allocated " + planning + " bytes");
    }

    @Test
    void firstSealingsAllocateOnlyThePagesOfSealedBlocks() {
        FirstSealings s = new FirstSealings();
        Digest a = new Digest(ChecksumAlgorithm.CRC32C, new byte[] {1, 2, 3, 4});
        Digest b = new Digest(ChecksumAlgorithm.CRC32C, new byte[] {1, 2, 3, 5});
        assertEquals(0, s.pages());
        assertTrue(s.sealed(5, a));
        assertTrue(s.sealed(5, a));
        assertFalse(s.sealed(5, b), "a different plaintext under the same nonce");
        assertTrue(s.sealed(6, b));
        assertTrue(s.sealed((1L << 32) - 1, b));
        assertEquals(2, s.pages());
        assertTrue(s.sealed(7, null), "nothing to compare without a digest");
    }

    /** Bytes this thread allocated so far (HotSpot counts them per thread, unaffected by other threads or GC). */
    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}

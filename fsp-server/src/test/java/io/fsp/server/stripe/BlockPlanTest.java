package io.fsp.server.stripe;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Digest;
import io.fsp.extension.ExtensionLimits;
import io.fsp.extension.FileSegment;
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

    /**
     * Every block of the plan is the block a walk through the files finds at that number: a file of at least a block
     * cut into blocks of its own, smaller ones packed whole while they fit; and the blocks' segments hold every byte
     * of every file exactly once, in order.
     */
    @Test
    void numbersBlocksAsAWalkThroughTheFilesDoes() throws Exception {
        Random random = new Random(12);
        for (int round = 0; round < 500; round++) {
            int blockSize = 1 + random.nextInt(20);
            List<Long> sizes = new ArrayList<>();
            for (int f = random.nextInt(12); f > 0; f--) {
                sizes.add(random.nextInt(4) == 0 ? 0L : (long) random.nextInt(random.nextBoolean() ? 8 : 100)); // empty files among them
            }
            List<BlockPlan.Block> walked = new ArrayList<>();
            long packed = 0; // bytes in the last block when it is an open pack
            for (int f = 0; f < sizes.size(); f++) {
                long size = sizes.get(f);
                if (size == 0) {
                    continue; // no block of its own, and a pack stays open
                }
                if (size < blockSize && packed > 0 && packed + size <= blockSize) {
                    BlockPlan.Block last = walked.remove(walked.size() - 1);
                    packed += size;
                    walked.add(new BlockPlan.Block(last.seq(), last.file(), 0, (int) packed, true));
                    continue;
                }
                for (long off = 0; off < size; off += blockSize) {
                    int len = (int) Math.min(blockSize, size - off);
                    walked.add(new BlockPlan.Block(walked.size(), f, off, len, off + len == size));
                }
                packed = size < blockSize ? size : 0;
            }
            BlockPlan plan = new BlockPlan(sizes, blockSize, Long.MAX_VALUE);
            assertEquals(walked.size(), plan.count(), plan.toString());
            long[] next = new long[sizes.size()]; // each file's next byte to be found in a segment
            for (BlockPlan.Block b : walked) {
                assertEquals(b, plan.block(b.seq()), sizes + " / " + blockSize);
                long bytes = 0;
                for (FileSegment s : plan.segments(b)) {
                    assertEquals(next[s.file()], s.offset(), "segment " + s + " of block " + b);
                    next[s.file()] = s.end();
                    bytes += s.length();
                }
                assertEquals(b.length(), bytes);
            }
            for (int f = 0; f < sizes.size(); f++) {
                assertEquals(sizes.get(f), next[f], "file " + f + " covered whole");
            }
            assertThrows(IndexOutOfBoundsException.class, () -> plan.block(plan.count()));
            assertThrows(IndexOutOfBoundsException.class, () -> plan.block(-1));
        }
    }

    /** A tree of tiny files: a block per block size of bytes, and never more files in one than the limit. */
    @Test
    void smallFilesArePackedUpToTheFilesLimit() throws Exception {
        List<Long> sizes = new ArrayList<>();
        for (int f = 0; f < 2000; f++) {
            sizes.add(f % 2 == 0 ? 1L : 0L); // empty ones count towards the files a block spans
        }
        BlockPlan plan = new BlockPlan(sizes, 1 << 20, Long.MAX_VALUE);
        assertEquals(2, plan.count());
        assertEquals(new BlockPlan.Block(0, 0, 0, ExtensionLimits.MAX_FILES_PER_BLOCK / 2, true), plan.block(0));
        assertEquals(ExtensionLimits.MAX_FILES_PER_BLOCK / 2, plan.segments(plan.block(0)).size());
        assertEquals(new BlockPlan.Block(1, ExtensionLimits.MAX_FILES_PER_BLOCK, 0,
                1000 - ExtensionLimits.MAX_FILES_PER_BLOCK / 2, true), plan.block(1));

        BlockPlan mixed = new BlockPlan(List.of(3000L, 5000L, 100L, 0L, 200L, 4096L, 10L), 4096, Long.MAX_VALUE);
        assertEquals(List.of(new BlockPlan.Block(0, 0, 0, 3000, true), new BlockPlan.Block(1, 1, 0, 4096, false),
                new BlockPlan.Block(2, 1, 4096, 904, true), new BlockPlan.Block(3, 2, 0, 300, true),
                new BlockPlan.Block(4, 5, 0, 4096, true), new BlockPlan.Block(5, 6, 0, 10, true)),
                java.util.stream.LongStream.range(0, mixed.count()).mapToObj(mixed::block).toList(),
                "a large file's tail is not packed; the next small files start a block of their own");
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

    /** block-size=auto: 1 MiB, doubled while the transfer keeps at least 32 blocks, at most 4 MiB. */
    @Test
    void anAutomaticBlockSizeGrowsWithTheTransferAndKeepsThirtyTwoBlocks() {
        long mib = 1 << 20;
        assertEquals(mib, BlockPlan.automaticBlockSize(0));
        assertEquals(mib, BlockPlan.automaticBlockSize(64 * mib - 1));
        assertEquals(2 * mib, BlockPlan.automaticBlockSize(64 * mib));
        assertEquals(2 * mib, BlockPlan.automaticBlockSize(128 * mib - 1));
        assertEquals(4 * mib, BlockPlan.automaticBlockSize(128 * mib));
        assertEquals(4 * mib, BlockPlan.automaticBlockSize(TIB));
        assertEquals(4 * mib, BlockPlan.automaticBlockSize(Long.MAX_VALUE));
        for (long total = 1; total < TIB; total = total * 3 + 7) {
            int size = BlockPlan.automaticBlockSize(total);
            assertTrue(size == mib || total / size >= 32, total + " bytes in blocks of " + size);
        }
    }

    /** A transfer planned with the defaults gets its block size from its bytes, and announces that size. */
    @Test
    void aTransferWithTheDefaultsIsCutByItsSize() throws Exception {
        Path large = dir.resolve("large.bin");
        try (RandomAccessFile f = new RandomAccessFile(large.toFile(), "rw")) {
            f.setLength(200L << 20); // sparse
        }
        java.nio.file.Files.write(dir.resolve("small.bin"), new byte[5000]);
        UserRoot root = new UserRoot(dir);
        StripedTransfer big = StripedTransfer.plan(root, FtpPath.ROOT.resolve("large.bin"), TransferOptions.DEFAULTS,
                1 << 20, new SecureRandom());
        assertEquals(4 << 20, big.plan().blockSize());
        assertEquals(50, big.plan().count());
        assertEquals("block-size=" + (4 << 20), big.options().announced().words().get(0));
        StripedTransfer small = StripedTransfer.plan(root, FtpPath.ROOT.resolve("small.bin"), TransferOptions.DEFAULTS,
                1 << 20, new SecureRandom());
        assertEquals(1 << 20, small.plan().blockSize());
        StripedTransfer asked = StripedTransfer.plan(root, FtpPath.ROOT.resolve("large.bin"),
                TransferOptions.DEFAULTS.with("block-size", "1m"), 1 << 20, new SecureRandom());
        assertEquals(200, asked.plan().count(), "a size the client asked for is kept");
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

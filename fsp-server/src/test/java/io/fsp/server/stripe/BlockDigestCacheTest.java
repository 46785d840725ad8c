package io.fsp.server.stripe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Digest;
import io.fsp.server.stripe.BlockDigestCache.Stamp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BlockDigestCacheTest {
    private static final int BLOCK = 1 << 20;
    private static final long SIZE = 3L * BLOCK + 5;

    @TempDir
    Path dir;

    private static Stamp stamp(Object fileKey, long size) {
        return new Stamp(fileKey, size, 1_000L, 2_000L);
    }

    private static Digest digest(int fill) {
        byte[] v = new byte[32];
        Arrays.fill(v, (byte) fill);
        return new Digest(ChecksumAlgorithm.SHA256, v);
    }

    @Test
    void keepsEachBlocksDigestForTheStampItWasMadeUnder() {
        BlockDigestCache cache = new BlockDigestCache(1 << 20);
        Stamp s = stamp("a", SIZE);
        cache.put(s, BLOCK, 0, digest(1));
        cache.put(s, BLOCK, 3, digest(4));
        assertEquals(Optional.of(digest(1)), cache.get(s, ChecksumAlgorithm.SHA256, BLOCK, 0));
        assertEquals(Optional.of(digest(4)), cache.get(s, ChecksumAlgorithm.SHA256, BLOCK, 3), "the last, short block");
        assertEquals(Optional.empty(), cache.get(s, ChecksumAlgorithm.SHA256, BLOCK, 1), "never kept");
        assertEquals(Optional.empty(), cache.get(s, ChecksumAlgorithm.SHA256, BLOCK, 4), "beyond the file");
        assertEquals(Optional.empty(), cache.get(s, ChecksumAlgorithm.SHA256, BLOCK / 2, 0), "another block size");
        assertEquals(Optional.empty(), cache.get(s, ChecksumAlgorithm.SHA1, BLOCK, 0), "another algorithm");
        assertEquals(4 * 32, cache.bytes());
    }

    @Test
    void anyChangeOfTheStampDropsWhatWasKept() {
        BlockDigestCache cache = new BlockDigestCache(1 << 20);
        Stamp s = stamp("a", SIZE);
        cache.put(s, BLOCK, 0, digest(1));
        for (Stamp other : new Stamp[] {new Stamp("a", SIZE, 1_001L, 2_000L), new Stamp("a", SIZE, 1_000L, 2_001L),
                new Stamp("a", SIZE + 1, 1_000L, 2_000L), new Stamp("b", SIZE, 1_000L, 2_000L)}) {
            assertEquals(Optional.empty(), cache.get(other, ChecksumAlgorithm.SHA256, BLOCK, 0), other.toString());
        }
        Stamp changed = new Stamp("a", SIZE, 1_000L, 9_000L);
        cache.put(changed, BLOCK, 1, digest(2));
        assertEquals(Optional.empty(), cache.get(s, ChecksumAlgorithm.SHA256, BLOCK, 0), "replaced by the new stamp's");
        assertEquals(Optional.empty(), cache.get(changed, ChecksumAlgorithm.SHA256, BLOCK, 0));
        assertEquals(Optional.of(digest(2)), cache.get(changed, ChecksumAlgorithm.SHA256, BLOCK, 1));
        assertEquals(4 * 32, cache.bytes(), "one file's digests, not two");
    }

    @Test
    void forgetsTheFilesUsedLeastRecentlyBeyondItsBound() {
        BlockDigestCache cache = new BlockDigestCache(3 * 4 * 32); // three files of four blocks
        for (String f : new String[] {"a", "b", "c"}) {
            cache.put(stamp(f, SIZE), BLOCK, 0, digest(f.charAt(0)));
        }
        assertTrue(cache.get(stamp("a", SIZE), ChecksumAlgorithm.SHA256, BLOCK, 0).isPresent()); // a: used last
        cache.put(stamp("d", SIZE), BLOCK, 0, digest('d'));
        assertEquals(3 * 4 * 32, cache.bytes());
        assertFalse(cache.get(stamp("b", SIZE), ChecksumAlgorithm.SHA256, BLOCK, 0).isPresent(), "b was the oldest");
        for (String kept : new String[] {"a", "c", "d"}) {
            assertTrue(cache.get(stamp(kept, SIZE), ChecksumAlgorithm.SHA256, BLOCK, 0).isPresent(), kept);
        }
    }

    @Test
    void aFileLargerThanTheWholeBoundIsNotKeptAndNothingWhenDisabled() {
        BlockDigestCache small = new BlockDigestCache(3 * 32);
        small.put(stamp("a", SIZE), BLOCK, 0, digest(1));
        assertEquals(0, small.bytes());
        assertEquals(Optional.empty(), small.get(stamp("a", SIZE), ChecksumAlgorithm.SHA256, BLOCK, 0));
        BlockDigestCache none = new BlockDigestCache(0);
        assertFalse(none.enabled());
        none.put(stamp("a", SIZE), BLOCK, 0, digest(1));
        assertEquals(0, none.bytes());
    }

    @Test
    void aStampSeesARewriteThatKeepsSizeAndModificationTime() throws Exception {
        Path file = dir.resolve("f");
        Files.write(file, new byte[] {1, 2, 3});
        FileTime modified = Files.getLastModifiedTime(file);
        Stamp before = Stamp.of(file).orElseThrow();
        assertEquals(Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class).fileKey(),
                before.fileKey());
        assertEquals(3, before.size());
        long changed = before.changedNanos();
        // The change time moves on with the kernel's clock tick: write until it has.
        for (int i = 0; i < 1000 && Stamp.of(file).orElseThrow().changedNanos() == changed; i++) {
            Files.write(file, new byte[] {4, 5, 6});
            Files.setLastModifiedTime(file, modified);
            Thread.sleep(1);
        }
        Stamp after = Stamp.of(file).orElseThrow();
        assertEquals(before.size(), after.size());
        assertEquals(before.modifiedNanos(), after.modifiedNanos(), "the modification time was set back");
        assertTrue(after.changedNanos() > before.changedNanos(), "the change time cannot be set back");
        assertFalse(before.equals(after));
        assertFalse(after.settled(System.currentTimeMillis() * 1_000_000L), "changed just now");
        assertTrue(after.settled(after.changedNanos() + BlockDigestCache.SETTLED.toNanos()));
        Files.delete(file);
        assertEquals(Optional.empty(), Stamp.of(file));
    }
}

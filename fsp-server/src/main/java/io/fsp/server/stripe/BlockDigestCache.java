package io.fsp.server.stripe;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Digest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The plaintext digests of the blocks of large files, kept between transfers: a file served again is read and
 * encrypted, but not hashed again. A file's digests hold only while its {@link Stamp} (device, inode, size,
 * modification and change times) is what it was when they were made. Every write sets the change time to the
 * clock's time, and nobody can set it back; a write within the clock's granularity of an earlier one may leave it
 * unchanged, so digests are kept only of a file whose change time is older than {@link #SETTLED}, and only of bytes
 * read while the stamp was the same before and after the read. Bounded by the bytes of the digests it holds; the
 * files used least recently are forgotten first.
 *
 * <p>A digest taken from here never makes wrong bytes pass: the client still checks what it wrote against it, so at
 * worst a file changed behind the stamp fails verification.
 */
final class BlockDigestCache {
    /** How old a file's change time must be for its digests to be kept. */
    static final Duration SETTLED = Duration.ofSeconds(2);

    /** What a file was: its identity, size, and modification and change times in nanoseconds. */
    record Stamp(Object fileKey, long size, long modifiedNanos, long changedNanos) {
        /**
         * The stamp of {@code file} now (a link is not followed); empty if it is gone or cannot be looked at (then
         * its blocks are hashed, as without this cache).
         */
        static Optional<Stamp> of(Path file) {
            Map<String, Object> a;
            try {
                a = Files.readAttributes(file, "unix:fileKey,size,lastModifiedTime,ctime", LinkOption.NOFOLLOW_LINKS);
            } catch (IOException | UnsupportedOperationException e) {
                return Optional.empty();
            }
            return Optional.of(new Stamp(a.get("fileKey"), (Long) a.get("size"), nanos(a.get("lastModifiedTime")),
                    nanos(a.get("ctime"))));
        }

        private static long nanos(Object time) {
            return ((FileTime) time).to(TimeUnit.NANOSECONDS);
        }

        /** Whether the change time is at least {@link #SETTLED} before {@code nowNanos} (wall clock). */
        boolean settled(long nowNanos) {
            return changedNanos <= nowNanos - SETTLED.toNanos();
        }
    }

    private record Key(Object fileKey, ChecksumAlgorithm algorithm, int blockSize) {
    }

    /** The digests of one file's blocks ({@code length} bytes each, block {@code i} at {@code i * length}). */
    private record Entry(Stamp stamp, byte[] values, BitSet present, int length) {
    }

    private final long maxBytes;
    private final AtomicLong reused = new AtomicLong();
    private final Map<Key, Entry> files = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;

    /** @param maxBytes the most bytes of digests held; 0 keeps none */
    BlockDigestCache(long maxBytes) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("maxBytes: " + maxBytes + " (expected: >= 0)");
        }
        this.maxBytes = maxBytes;
    }

    /** Whether digests are kept at all. */
    boolean enabled() {
        return maxBytes > 0;
    }

    /** The digest of block {@code block} (of {@code blockSize} bytes) of the file as {@code stamp} says it is, if kept. */
    synchronized Optional<Digest> get(Stamp stamp, ChecksumAlgorithm algorithm, int blockSize, long block) {
        Entry e = files.get(new Key(stamp.fileKey(), algorithm, blockSize));
        if (e == null || !e.stamp().equals(stamp) || block < 0 || block >= Integer.MAX_VALUE
                || !e.present().get((int) block)) {
            return Optional.empty();
        }
        int from = (int) block * e.length();
        return Optional.of(new Digest(algorithm, Arrays.copyOfRange(e.values(), from, from + e.length())));
    }

    /**
     * Keeps {@code digest} as that of block {@code block} of the file as {@code stamp} says it is; digests kept for
     * another stamp of that file are dropped. A file whose digests would take more than the whole bound is not kept.
     */
    synchronized void put(Stamp stamp, int blockSize, long block, Digest digest) {
        Key key = new Key(stamp.fileKey(), digest.algorithm(), blockSize);
        long blocks = stamp.size() / blockSize + (stamp.size() % blockSize == 0 ? 0 : 1);
        int length = digest.algorithm().length();
        if (block < 0 || block >= blocks || blocks * length > maxBytes || blocks * length > Integer.MAX_VALUE) {
            return;
        }
        Entry e = files.get(key);
        if (e == null || !e.stamp().equals(stamp)) {
            if (e != null) {
                bytes -= e.values().length;
            }
            e = new Entry(stamp, new byte[(int) (blocks * length)], new BitSet((int) blocks), length);
            files.put(key, e);
            bytes += e.values().length;
            evictBeyondBound(key);
        }
        System.arraycopy(digest.value(), 0, e.values(), (int) block * length, length);
        e.present().set((int) block);
    }

    /** Forgets the files used least recently until the bound holds, never {@code keep}. */
    private void evictBeyondBound(Key keep) {
        for (Iterator<Map.Entry<Key, Entry>> it = files.entrySet().iterator(); bytes > maxBytes && it.hasNext(); ) {
            Map.Entry<Key, Entry> oldest = it.next();
            if (!oldest.getKey().equals(keep)) {
                bytes -= oldest.getValue().values().length;
                it.remove();
            }
        }
    }

    /** Counts a block sealed with a digest from here. */
    void reused() {
        reused.incrementAndGet();
    }

    /** How many blocks were sealed with a digest from here. */
    long reusedCount() {
        return reused.get();
    }

    /** Bytes of digests held. */
    synchronized long bytes() {
        return bytes;
    }
}

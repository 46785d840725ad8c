package io.fsp.client.collect;

import io.fsp.extension.FileSegment;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks that the announced blocks tile every file exactly: with each block inside its file (the caller checks
 * that), none may overlap another ({@link #add}), and once every block is announced their lengths must add up to
 * each file's size ({@link #covered}). A server that announces too few blocks for a file must not yield a
 * zero-filled file reported complete. Not thread-safe: the control channel's reader alone calls it.
 */
final class BlockTiling {
    private final Map<Integer, TreeMap<Long, Long>> ranges = new HashMap<>();
    private final Map<Integer, Long> bytes = new HashMap<>();

    /**
     * Records where the part {@code s} of block {@code seq} in file {@code name} (checked before to lie inside it) is.
     *
     * @throws IllegalArgumentException if it overlaps a block announced before
     */
    void add(long seq, FileSegment s, String name) {
        long end = s.end();
        TreeMap<Long, Long> file = ranges.computeIfAbsent(s.file(), k -> new TreeMap<>());
        Map.Entry<Long, Long> before = file.floorEntry(s.offset());
        Map.Entry<Long, Long> after = file.ceilingEntry(s.offset());
        if (before != null && before.getValue() > s.offset() || after != null && after.getKey() < end) {
            throw new IllegalArgumentException("BLK " + seq + ": bytes " + s.offset() + ".." + end + " of " + name
                    + " overlap another block (expected: every byte in exactly one block)");
        }
        file.put(s.offset(), end);
        bytes.merge(s.file(), (long) s.length(), Long::sum);
    }

    /** The bytes of file {@code index} that announced blocks cover (with no overlap: its size when it is tiled). */
    long covered(int index) {
        return bytes.getOrDefault(index, 0L);
    }
}

package io.fsp.client.collect;

import io.fsp.client.collect.DestinationFiles.RemoteFile;
import io.fsp.client.control.ControlException;
import io.fsp.extension.FileSegment;
import io.fsp.ftp.ReplyCode;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks that the announced blocks tile every file exactly: with each block inside its file (the caller checks
 * that), none may overlap another ({@link #add}), and once every block is announced their lengths must add up to
 * each file's size ({@link #covered}). A server that announces too few blocks for a file must not yield a
 * zero-filled file reported complete. Not thread-safe: the control channel's reader alone calls it.
 *
 * <p>A server announces each file's blocks in order, each starting where the one before ended: for such a file two
 * numbers say everything (how far the blocks reach from offset 0, and the bytes covered), 16 bytes a file where a
 * map of ranges took about 230, which a tree of a million files felt. A file whose blocks come in another order gets
 * the map from then on.
 */
final class BlockTiling {
    /** Per file index: the end of the bytes covered without a gap from offset 0 by the blocks announced so far. */
    private long[] reach = new long[0];
    /** Per file index: the bytes announced blocks cover. */
    private long[] bytes = new long[0];
    /** Files whose blocks came out of order: every range covered, start to end. */
    private final Map<Integer, TreeMap<Long, Long>> scattered = new HashMap<>();

    /**
     * Records where the part {@code s} of block {@code seq} in file {@code name} (checked before to lie inside it) is.
     *
     * @throws IllegalArgumentException if it overlaps a block announced before
     */
    void add(long seq, FileSegment s, String name) {
        int f = s.file();
        if (f >= reach.length) { // file indices were checked against the FILE lines: at most their number
            int n = Math.max(f + 1, reach.length * 2);
            reach = Arrays.copyOf(reach, n);
            bytes = Arrays.copyOf(bytes, n);
        }
        TreeMap<Long, Long> ranges = scattered.get(f);
        if (ranges == null) {
            if (s.offset() == reach[f]) {
                reach[f] = s.end();
                bytes[f] += s.length();
                return;
            }
            ranges = new TreeMap<>();
            if (reach[f] > 0) {
                ranges.put(0L, reach[f]);
            }
            scattered.put(f, ranges);
        }
        long end = s.end();
        Map.Entry<Long, Long> before = ranges.floorEntry(s.offset());
        Map.Entry<Long, Long> after = ranges.ceilingEntry(s.offset());
        if (before != null && before.getValue() > s.offset() || after != null && after.getKey() < end) {
            throw new IllegalArgumentException("BLK " + seq + ": bytes " + s.offset() + ".." + end + " of " + name
                    + " overlap another block (expected: every byte in exactly one block)");
        }
        ranges.put(s.offset(), end);
        bytes[f] += s.length();
    }

    /** The bytes of file {@code index} that announced blocks cover (with no overlap: its size when it is tiled). */
    long covered(int index) {
        return index < bytes.length ? bytes[index] : 0;
    }

    /**
     * Once every block is announced: each file's blocks cover it whole, else the transfer cannot be complete.
     *
     * @param remotePath what FRET retrieved, for the error
     */
    void checkCovers(Collection<RemoteFile> files, String remotePath) throws ControlException {
        for (RemoteFile f : files) {
            long covered = covered(f.index());
            if (covered != f.size()) {
                throw new ControlException("FRET " + remotePath + ": the server announced blocks for " + covered
                        + " of the " + f.size() + " bytes of " + f.name() + " (expected: every byte of every file)",
                        ReplyCode.TRANSFER_COMPLETE.value(), null);
            }
        }
    }
}

package io.fsp.server.stripe;

import io.fsp.extension.ByteRange;
import io.fsp.extension.Manifest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a resuming client already holds, verified, from an earlier run of the same transfer (FHAV lines before
 * FRET): byte ranges per file index of the manifest as the client saw it. FRET honours it only when its own
 * manifest has the same digest (same files, sizes, modification times and names); then blocks inside these
 * ranges are neither read nor sent again.
 */
public final class ResumeClaim {
    /** Ranges one session may claim in all, so that FHAV cannot make the server hold unbounded state. */
    public static final int MAX_RANGES = 100_000;

    private final String manifestDigest;
    private final Map<Integer, TreeMap<Long, Long>> held = new HashMap<>();
    private int added;

    /** @param manifestDigest the {@link Manifest#digest()} of the earlier run */
    public ResumeClaim(String manifestDigest) {
        this.manifestDigest = Manifest.requireDigest(manifestDigest);
    }

    public String manifestDigest() {
        return manifestDigest;
    }

    /**
     * Adds the ranges of one FHAV line for file {@code file}, each merged with what touches it: all of them, or
     * none when they would take the session past {@link #MAX_RANGES}.
     */
    public synchronized void add(int file, List<ByteRange> ranges) {
        if (file < 0) {
            throw new IllegalArgumentException("file index: " + file + " (expected: >= 0)");
        }
        if (added + ranges.size() > MAX_RANGES) {
            throw new IllegalArgumentException("ranges: " + (added + ranges.size()) + " in this session (expected: <= "
                    + MAX_RANGES + ")");
        }
        added += ranges.size();
        TreeMap<Long, Long> held = this.held.computeIfAbsent(file, f -> new TreeMap<>());
        for (ByteRange r : ranges) {
            merge(held, r);
        }
    }

    private static void merge(TreeMap<Long, Long> ranges, ByteRange r) {
        long start = r.from();
        long end = r.to();
        Map.Entry<Long, Long> below = ranges.floorEntry(start);
        if (below != null && below.getValue() >= start) {
            start = below.getKey();
            end = Math.max(end, below.getValue());
            ranges.remove(below.getKey());
        }
        for (Map.Entry<Long, Long> e; (e = ranges.ceilingEntry(start)) != null && e.getKey() <= end; ) {
            end = Math.max(end, e.getValue());
            ranges.remove(e.getKey());
        }
        ranges.put(start, end);
    }

    /** Whether bytes {@code offset} to {@code offset + length} of file {@code file} are all held. */
    public synchronized boolean covers(int file, long offset, long length) {
        TreeMap<Long, Long> ranges = held.get(file);
        if (ranges == null) {
            return false;
        }
        Map.Entry<Long, Long> e = ranges.floorEntry(offset);
        return e != null && e.getValue() >= offset + length;
    }
}

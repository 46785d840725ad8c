package io.fsp.server.stripe;

import io.fsp.extension.Manifest;
import java.util.HashMap;
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

    /** Adds bytes {@code from} (inclusive) to {@code to} (exclusive) of file {@code file}, merged with what touches them. */
    public synchronized void add(int file, long from, long to) {
        if (file < 0 || from < 0 || to <= from) {
            throw new IllegalArgumentException("range: file " + file + " " + from + "-" + to
                    + " (expected: file >= 0, 0 <= from < to)");
        }
        if (++added > MAX_RANGES) {
            throw new IllegalArgumentException("ranges: " + added + " (expected: <= " + MAX_RANGES + ")");
        }
        TreeMap<Long, Long> ranges = held.computeIfAbsent(file, f -> new TreeMap<>());
        long start = from;
        long end = to;
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

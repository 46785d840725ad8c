package io.fsp.extension;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/** Bytes {@code from} (inclusive) to {@code to} (exclusive) of a file; never empty. Written {@code from-to}. */
public record ByteRange(long from, long to) {
    public ByteRange {
        if (from < 0 || to <= from) {
            throw new IllegalArgumentException("range: " + from + "-" + to + " (expected: 0 <= from < to)");
        }
    }

    public long length() {
        return to - from;
    }

    /** Whether every byte of {@code other} lies in this range. */
    public boolean covers(ByteRange other) {
        return from <= other.from && other.to <= to;
    }

    /** The ranges sorted, with those that overlap or touch merged into one. */
    public static List<ByteRange> coalesce(Collection<ByteRange> ranges) {
        List<ByteRange> sorted = new ArrayList<>(ranges);
        sorted.sort(Comparator.comparingLong(ByteRange::from));
        List<ByteRange> out = new ArrayList<>();
        for (ByteRange r : sorted) {
            ByteRange last = out.isEmpty() ? null : out.get(out.size() - 1);
            if (last != null && r.from <= last.to) {
                out.set(out.size() - 1, new ByteRange(last.from, Math.max(last.to, r.to)));
            } else {
                out.add(r);
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return from + "-" + to;
    }
}

package io.fsp.extension;

import java.util.ArrayList;
import java.util.List;

/**
 * The argument of one FHAV line, {@code <manifest> <file-index> <from>-<to>[,<from>-<to>…]}: byte ranges of
 * file {@code file} of the manifest with digest {@code manifest} that a resuming client holds verified.
 */
public record HeldRanges(String manifest, int file, List<ByteRange> ranges) {
    public HeldRanges {
        Manifest.requireDigest(manifest);
        ExtensionCodec.check("file index", file, 0, Integer.MAX_VALUE);
        ranges = List.copyOf(ranges);
        if (ranges.isEmpty() || ranges.size() > ExtensionLimits.MAX_RANGES_PER_LINE) {
            throw new IllegalArgumentException("ranges: " + ranges.size() + " (expected: 1.."
                    + ExtensionLimits.MAX_RANGES_PER_LINE + " per line)");
        }
    }

    /** The FHAV lines that claim {@code ranges} of one file, as few as the per-line limit allows. */
    public static List<HeldRanges> lines(String manifest, int file, List<ByteRange> ranges) {
        List<HeldRanges> out = new ArrayList<>();
        for (int i = 0; i < ranges.size(); i += ExtensionLimits.MAX_RANGES_PER_LINE) {
            out.add(new HeldRanges(manifest, file,
                    ranges.subList(i, Math.min(ranges.size(), i + ExtensionLimits.MAX_RANGES_PER_LINE))));
        }
        return out;
    }
}

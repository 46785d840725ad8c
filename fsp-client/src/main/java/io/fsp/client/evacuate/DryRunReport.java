package io.fsp.client.evacuate;

import io.fsp.client.collect.CollectSummary;
import io.fsp.extension.Announcement;
import java.time.Duration;
import java.util.Locale;

/**
 * What a dry run measured: the data set's size, how fast the server placed blocks on its relays (bytes of the BLK
 * lines over the seconds since the first), and the time an evacuation would take: the time until the first block,
 * plus the data set at the measured rate (or, when the probe saw the 226, the time it took).
 *
 * @param setupSeconds from FRET until the first block was placed
 * @param probeSeconds over how long the rate was measured
 * @param finished the server placed every block within the probe
 * @param deadline the deadline to compare with, or null
 */
public record DryRunReport(String transferId, int files, long bytes, long blocks, long probeBlocks, long probeBytes,
                           double setupSeconds, double probeSeconds, boolean finished, Duration deadline) {

    static DryRunReport of(Announcement.Transfer t, double setupSeconds, long probeBlocks, long probeBytes,
                           double probeSeconds, boolean finished, Duration deadline) {
        return new DryRunReport(t == null ? null : t.id().toString(), t == null ? 0 : t.files(), t == null ? 0 : t.bytes(),
                t == null ? 0 : t.blocks(), probeBlocks, probeBytes, setupSeconds, probeSeconds, finished, deadline);
    }

    /** Bytes placed per second, 0 if nothing was measured. */
    public double rate() {
        return probeSeconds > 0 ? probeBytes / probeSeconds : 0;
    }

    /** The estimated seconds of the evacuation; infinite when no block was placed. */
    public double estimatedSeconds() {
        if (finished) {
            return setupSeconds + probeSeconds;
        }
        return rate() > 0 ? setupSeconds + bytes / rate() : Double.POSITIVE_INFINITY;
    }

    /** No deadline, or the estimate meets it. */
    public boolean meetsDeadline() {
        return deadline == null || estimatedSeconds() <= deadline.toMillis() / 1e3;
    }

    public String toText() {
        String estimate = Double.isInfinite(estimatedSeconds()) ? "unknown (no block was placed)"
                : String.format(Locale.ROOT, "%.1f s", estimatedSeconds());
        return String.format(Locale.ROOT, "dry run: %,d bytes in %d files, %d blocks%n  placement rate %.1f MB/s (%d blocks,"
                        + " %,d bytes in %.2f s%s; first block after %.2f s)%n  estimated time %s%s", bytes, files, blocks,
                rate() / 1e6, probeBlocks, probeBytes, probeSeconds, finished ? ", every block" : "", setupSeconds, estimate,
                deadline == null ? "" : String.format(Locale.ROOT, "%n  deadline %d s: %s", deadline.toSeconds(),
                        meetsDeadline() ? "can be met" : "CANNOT be met"));
    }

    public String toJson() {
        double est = estimatedSeconds();
        return "{\"dry_run\":true,\"transfer\":" + CollectSummary.quote(transferId) + ",\"files\":" + files + ",\"bytes\":" + bytes
                + ",\"blocks\":" + blocks + String.format(Locale.ROOT, ",\"rate_bytes_per_s\":%.0f,\"probe_seconds\":%.3f"
                + ",\"setup_seconds\":%.3f", rate(), probeSeconds, setupSeconds) + ",\"probe_blocks\":" + probeBlocks
                + ",\"finished\":" + finished + ",\"estimated_seconds\":"
                + (Double.isInfinite(est) ? "null" : String.format(Locale.ROOT, "%.3f", est))
                + ",\"deadline_seconds\":" + (deadline == null ? "null" : deadline.toSeconds())
                + ",\"deadline_met\":" + (deadline == null ? "null" : meetsDeadline()) + "}";
    }
}

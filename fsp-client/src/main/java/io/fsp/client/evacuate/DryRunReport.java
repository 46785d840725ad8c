package io.fsp.client.evacuate;

import io.fsp.client.collect.CollectSummary;
import io.fsp.extension.Announcement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a dry run found: whether the server took the evacuation as asked (its retention right included), which relays
 * took it and what each reserved, which were left out and why, how fast the server placed blocks on them (bytes of
 * the BLK lines over the seconds since the first), and the time an evacuation would take: the time until the first
 * block, plus the data set at the measured rate (or, when the probe saw the 226, the time it took). It can be met
 * only when every one of these holds for the copies asked; {@link #reasons} says what does not and what would fit.
 *
 * @param setupSeconds from FRET until the first block was placed
 * @param probeSeconds over how long the rate was measured
 * @param finished the server placed every block within the probe
 * @param deadline the deadline to compare with, or null
 * @param replicas the copies asked
 * @param retain the retention asked, as --retain took it
 * @param refusal what the server answered when it refused the evacuation, or null
 * @param relays what the relays said
 * @param unplacedBlocks blocks of the probe no relay took
 */
public record DryRunReport(String transferId, int files, long bytes, long blocks, long probeBlocks, long probeBytes,
                           double setupSeconds, double probeSeconds, boolean finished, Duration deadline, int replicas,
                           String retain, String refusal, RelayOutcomes relays, long unplacedBlocks) {

    static DryRunReport of(Announcement.Transfer t, double setupSeconds, long probeBlocks, long probeBytes,
                           double probeSeconds, boolean finished, Evacuation.Options o, String refusal,
                           RelayOutcomes relays, long unplacedBlocks) {
        return new DryRunReport(t == null ? null : t.id().toString(), t == null ? 0 : t.files(), t == null ? 0 : t.bytes(),
                t == null ? 0 : t.blocks(), probeBlocks, probeBytes, setupSeconds, probeSeconds, finished, o.deadline(),
                o.replicas(), o.retain(), refusal, relays, unplacedBlocks);
    }

    /** Bytes placed per second, 0 if nothing was measured. */
    public double rate() {
        return probeSeconds > 0 ? probeBytes / probeSeconds : 0;
    }

    /** The estimated seconds of the evacuation; infinite when no block was placed. */
    public double estimatedSeconds() {
        if (finished && (probeBytes > 0 || bytes == 0)) {
            return setupSeconds + probeSeconds;
        }
        return rate() > 0 ? setupSeconds + bytes / rate() : Double.POSITIVE_INFINITY;
    }

    /** No deadline, or the estimate meets it. */
    public boolean meetsDeadline() {
        return deadline == null || estimatedSeconds() <= deadline.toMillis() / 1e3;
    }

    /** Every condition holds: the evacuation as asked can be met. */
    public boolean canBeMet() {
        return reasons().isEmpty();
    }

    /**
     * Why the evacuation as asked cannot be met, one line each, with the relays it came from and what would make it
     * fit; empty when it can.
     */
    public List<String> reasons() {
        List<String> out = new ArrayList<>();
        if (refusal != null) {
            out.add("the server refused the evacuation: " + refusal + (refusal.contains("retain-user")
                    ? " (it needs a retain-user line for this account, allowing at least --retain " + retain
                    + ", in its configuration)" : ""));
            return out; // nothing else was asked
        }
        List<RelayOutcomes.Taken> taken = relays.taken();
        long declared = relays.declared();
        long needed = replicas * Math.max(0, declared);
        long shortBy = declared < 0 ? 0 : needed - relays.usableReserved();
        if (taken.size() < replicas || shortBy > 0) {
            long more = Math.max(replicas - taken.size(), declared > 0 ? (shortBy + declared - 1) / declared : 0);
            out.add(String.format(Locale.ROOT, "%d relay%s took the transfer%s, %d copies (--replicas %d)%s need %s",
                    taken.size(), taken.size() == 1 ? "" : "s", reserved(taken), replicas, replicas,
                    declared < 0 ? "" : " of " + RelayOutcomes.size(declared), declared < 0 ? replicas + " relays"
                            : RelayOutcomes.size(needed) + " on " + replicas + " relays"));
            out.add("would fit: " + more + " more relay" + (more == 1 ? "" : "s") + (declared < 0 ? ""
                    : " with " + RelayOutcomes.size(declared) + " free each for this transfer (its --transfer-space,"
                    + " and as much free space)") + (taken.isEmpty() || declared < 0 ? ""
                    : ", or more --transfer-space on those taking it") + ", or fewer --replicas");
        }
        List<String> said = relays.reasons();
        if (!out.isEmpty() || said.stream().anyMatch(s -> s.contains("RETENTION_TOO_LONG"))) {
            out.addAll(said);
        }
        if (relays.refused().stream().anyMatch(s -> s.reason().equals("RETENTION_TOO_LONG"))) {
            String shortest = relays.shortestMaxRetain();
            out.add("would fit: " + (shortest == null ? "a --retain no longer than those relays keep evacuations"
                    : "--retain " + shortest + " or shorter (the shortest max-retain they named)")
                    + ", or relays that keep evacuations --retain " + retain);
        }
        if (bytes > 0 && rate() <= 0) {
            out.add("no block was placed on a relay within the probe" + (unplacedBlocks > 0 ? " (" + unplacedBlocks
                    + " found no relay)" : ""));
        } else if (unplacedBlocks > 0) {
            out.add(unplacedBlocks + " blocks of the probe found no relay");
        }
        if (!meetsDeadline() && rate() > 0) {
            out.add(String.format(Locale.ROOT, "the estimate, %.1f s, misses the deadline of %d s", estimatedSeconds(),
                    deadline.toSeconds()));
        }
        return out;
    }

    private static String reserved(List<RelayOutcomes.Taken> taken) {
        List<String> each = taken.stream().map(t -> t.address() + (t.reserved() < 0 ? "" : " reserving "
                + RelayOutcomes.size(t.reserved()))).toList();
        return each.isEmpty() ? "" : " (" + String.join(", ", each) + ")";
    }

    public String toText() {
        String estimate = Double.isInfinite(estimatedSeconds()) ? "unknown (no block was placed)"
                : String.format(Locale.ROOT, "%.1f s", estimatedSeconds());
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "dry run: %,d bytes in %d files, %d blocks, %d"
                        + " copies kept %s%n  placement rate %.1f MB/s (%d blocks, %,d bytes in %.2f s%s; first block"
                        + " after %.2f s)%n  estimated time %s", bytes, files, blocks, replicas, retain, rate() / 1e6,
                probeBlocks, probeBytes, probeSeconds, finished ? ", every block" : "", setupSeconds, estimate));
        for (RelayOutcomes.Taken t : relays.taken()) {
            sb.append(String.format(Locale.ROOT, "%n  relay %s took it%s", t.address(), t.reserved() < 0 ? ""
                    : ", reserving " + RelayOutcomes.size(t.reserved()) + " of " + RelayOutcomes.size(t.declared())));
        }
        List<String> reasons = reasons();
        String what = deadline == null ? "evacuation" : "deadline " + deadline.toSeconds() + " s";
        sb.append(String.format(Locale.ROOT, "%n  %s: %s", what, reasons.isEmpty() ? "can be met" : "CANNOT be met"));
        reasons.forEach(r -> sb.append(String.format(Locale.ROOT, "%n    %s", r)));
        if (reasons.isEmpty()) {
            relays.reasons().forEach(r -> sb.append(String.format(Locale.ROOT, "%n  note: %s", r)));
        }
        return sb.toString();
    }

    public String toJson() {
        double est = estimatedSeconds();
        StringBuilder sb = new StringBuilder("{\"dry_run\":true,\"transfer\":" + CollectSummary.quote(transferId)
                + ",\"files\":" + files + ",\"bytes\":" + bytes + ",\"blocks\":" + blocks
                + String.format(Locale.ROOT, ",\"rate_bytes_per_s\":%.0f,\"probe_seconds\":%.3f"
                + ",\"setup_seconds\":%.3f", rate(), probeSeconds, setupSeconds) + ",\"probe_blocks\":" + probeBlocks
                + ",\"finished\":" + finished + ",\"estimated_seconds\":"
                + (Double.isInfinite(est) ? "null" : String.format(Locale.ROOT, "%.3f", est))
                + ",\"deadline_seconds\":" + (deadline == null ? "null" : deadline.toSeconds())
                + ",\"deadline_met\":" + (deadline == null ? "null" : meetsDeadline() && canBeMet()));
        sb.append(",\"can_be_met\":").append(canBeMet());
        sb.append(",\"replicas\":").append(replicas);
        sb.append(",\"retain\":").append(CollectSummary.quote(retain));
        sb.append(",\"server_refused\":").append(CollectSummary.quote(refusal));
        sb.append(",\"probe_bytes\":").append(probeBytes);
        sb.append(",\"blocks_on_no_relay\":").append(unplacedBlocks);
        sb.append(",\"relays\":[");
        String sep = "";
        for (RelayOutcomes.Taken t : relays.taken()) {
            sb.append(sep).append("{\"relay\":").append(CollectSummary.quote(t.address())).append(",\"reserved\":")
                    .append(t.reserved() < 0 ? "null" : t.reserved()).append(",\"declared\":")
                    .append(t.declared() < 0 ? "null" : t.declared()).append('}');
            sep = ",";
        }
        sb.append("],\"refused\":").append(EvacuationReport.said(relays.refused()));
        sb.append(",\"stopped\":").append(EvacuationReport.said(relays.stopped()));
        sb.append(",\"reasons\":").append(CollectSummary.quote(reasons()));
        return sb.append('}').toString();
    }
}

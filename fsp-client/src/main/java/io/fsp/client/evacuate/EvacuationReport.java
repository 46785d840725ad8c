package io.fsp.client.evacuate;

import io.fsp.client.collect.CollectSummary;
import io.fsp.client.collect.RecordedTransfer;
import io.fsp.client.evacuate.EvacuationManifest.State;
import io.fsp.extension.Announcement;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * What an evacuation got out: each file wholly on relays or not, in priority order (the server's, which puts the files
 * FPRI named first), with the totals; how many copies its blocks have (per file, the fewest and the most), what each
 * relay holds and reserved, and what the relays said (refused, stopped) as the reasons of a shortfall; in text, each
 * priority entry's state and the files that are not out or short of copies.
 *
 * @param announcements what the manifest holds
 * @param deadlineReached the deadline stopped the evacuation before the 226
 * @param error why reading the FRET failed, or null
 * @param replicas the copies asked of every block
 */
public record EvacuationReport(Path manifest, List<Announcement> announcements, List<String> priority, State state,
                               boolean deadlineReached, double seconds, Instant retainUntil, String error, int replicas) {

    /**
     * One file of the data set, how much of it is on relays, the fewest and most copies of its blocks (0 when none is
     * on a relay), and how many of its blocks have fewer copies than asked.
     */
    public record FileOut(String name, long size, long placed, int minCopies, int maxCopies, int shortBlocks) {
        public boolean isOut() {
            return placed == size;
        }
    }

    /** Files not out named one by one in the text report; --json names all. */
    static final int MAX_LISTED = 100;

    public EvacuationReport {
        announcements = List.copyOf(announcements);
        priority = List.copyOf(priority);
    }

    /** Every 226 came and every file is wholly on relays. */
    public boolean isComplete() {
        return tally().complete();
    }

    /**
     * The announced files in the server's order, which is the priority order: the server plans the files FPRI named
     * first (docs/protocol.md §1, FPRI).
     */
    public List<FileOut> files() {
        return tally().files();
    }

    /** Per priority entry, in order: the files it names (a file, or every file under a directory). */
    public Map<String, List<FileOut>> byPriority() {
        return tally().byPriority();
    }

    /** The priority entries that name no announced file. */
    public List<String> unmatchedPriorities() {
        return tally().unmatchedPriorities();
    }

    /** Files of the data set that were not even announced before the evacuation stopped. */
    public int unannouncedFiles() {
        return tally().unannounced();
    }

    /** Every block announced has at least {@link #replicas} copies on distinct relays. */
    public boolean hasEveryCopy() {
        return tally().files().stream().allMatch(f -> f.shortBlocks() == 0);
    }

    /** The files some of whose blocks have fewer copies than asked. */
    public List<FileOut> shortOfCopies() {
        return tally().files().stream().filter(f -> f.shortBlocks() > 0).toList();
    }

    /** What the relays said, and what they hold. */
    public RelayOutcomes relays() {
        return RelayOutcomes.of(announcements);
    }

    /** What the report says, from one pass over the announcements (a manifest may hold millions of lines). */
    private record Tally(List<FileOut> files, int unannounced, Map<String, List<FileOut>> byPriority, boolean complete) {
        List<String> unmatchedPriorities() {
            return byPriority.entrySet().stream().filter(e -> e.getValue().isEmpty()).map(Map.Entry::getKey).toList();
        }
    }

    private Tally tally() {
        List<FileOut> files = new ArrayList<>();
        int unannounced = 0;
        if (!announcements.isEmpty()) {
            RecordedTransfer recorded = new RecordedTransfer(announcements);
            Map<Integer, Long> placed = recorded.placedBytes();
            Map<Integer, Long> sizes = new java.util.HashMap<>();
            recorded.files().forEach(f -> sizes.put(f.index(), f.size()));
            Map<Integer, int[]> copies = relays().copiesByFile(replicas, recorded.transfer().files(),
                    i -> sizes.getOrDefault(i, -1L));
            for (Announcement.File f : recorded.files()) {
                int[] c = copies.getOrDefault(f.index(), new int[3]);
                files.add(new FileOut(f.name(), f.size(), placed.getOrDefault(f.index(), 0L), c[0], c[1], c[2]));
            }
            unannounced = recorded.unrecordedFiles();
        }
        NavigableMap<String, FileOut> byName = new TreeMap<>();
        files.forEach(f -> byName.put(f.name(), f));
        Map<String, List<FileOut>> named = new LinkedHashMap<>();
        for (String entry : priority) {
            List<FileOut> entryFiles = new ArrayList<>();
            FileOut exact = byName.get(entry);
            if (exact != null) {
                entryFiles.add(exact);
            }
            // the names under "entry/" sort together, between "entry/" and "entry0" ('0' follows '/')
            entryFiles.addAll(byName.subMap(entry + "/", true, entry + "0", false).values());
            named.put(entry, entryFiles);
        }
        boolean complete = state == State.COMPLETE && error == null && unannounced == 0 && files.stream().allMatch(FileOut::isOut);
        return new Tally(List.copyOf(files), unannounced, named, complete);
    }

    private long blocks(Class<? extends Announcement.Placement> placement) {
        return announcements.stream().filter(a -> a instanceof Announcement.Block b && placement.isInstance(b.placement())).count();
    }

    public String transferId() {
        return !announcements.isEmpty() && announcements.get(0) instanceof Announcement.Transfer t ? t.id().toString() : null;
    }

    public String toText() {
        Tally tally = tally();
        List<FileOut> files = tally.files();
        long out = files.stream().filter(FileOut::isOut).count();
        long bytes = files.stream().mapToLong(FileOut::size).sum();
        long placed = files.stream().mapToLong(FileOut::placed).sum();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%s: %d of %d files wholly on relays (%,d of %,d bytes), %d blocks placed,"
                        + " %d on no relay; %s in %.2f s%n", tally.complete() ? "evacuated" : "PARTLY evacuated", out,
                files.size() + tally.unannounced(), placed, bytes, blocks(Announcement.Placement.Relays.class),
                blocks(Announcement.Placement.Origin.class), deadlineReached ? "stopped at the deadline" : "state " + state.label(),
                seconds));
        if (transferId() != null) { // what a collector may expect (fsp collect --transfer)
            sb.append("  transfer ").append(transferId()).append(System.lineSeparator());
        }
        sb.append("  manifest ").append(manifest).append(", blocks kept on the relays until ").append(retainUntil)
                .append(System.lineSeparator());
        for (Map.Entry<String, List<FileOut>> e : tally.byPriority().entrySet()) {
            long entryOut = e.getValue().stream().filter(FileOut::isOut).count();
            if (!e.getValue().isEmpty()) {
                sb.append(String.format(Locale.ROOT, "  priority '%s': %s%n", e.getKey(), entryOut == e.getValue().size()
                        ? (entryOut == 1 ? "out" : "all " + entryOut + " files out")
                        : entryOut + " of " + e.getValue().size() + " files out"));
            }
        }
        // every file not out by name (a data set may hold millions of files: the first ones, then a count)
        List<FileOut> notOut = files.stream().filter(f -> !f.isOut()).toList();
        for (FileOut f : notOut.subList(0, Math.min(notOut.size(), MAX_LISTED))) {
            sb.append(String.format(Locale.ROOT, "  NOT OUT  %s (%,d of %,d bytes on relays)%n", f.name(), f.placed(), f.size()));
        }
        if (notOut.size() > MAX_LISTED) {
            sb.append(String.format(Locale.ROOT, "  NOT OUT  %,d more files (--json lists every file)%n", notOut.size() - MAX_LISTED));
        }
        if (tally.unannounced() > 0) {
            sb.append("  NOT OUT  ").append(tally.unannounced()).append(" more files, not announced before the evacuation stopped")
                    .append(System.lineSeparator());
        }
        copiesText(sb, files);
        for (String p : tally.unmatchedPriorities()) {
            sb.append("  priority '").append(p).append("' names no file of the data set").append(System.lineSeparator());
        }
        if (error != null) {
            sb.append("  error: ").append(error).append(System.lineSeparator());
        }
        return sb.toString().stripTrailing();
    }

    /** The copies: overall, per relay, the files short of them, and why. */
    private void copiesText(StringBuilder sb, List<FileOut> files) {
        String nl = System.lineSeparator();
        RelayOutcomes relays = relays();
        List<FileOut> placed = files.stream().filter(f -> f.maxCopies() > 0).toList();
        List<FileOut> short_ = files.stream().filter(f -> f.shortBlocks() > 0).toList();
        long shortBlocks = short_.stream().mapToLong(FileOut::shortBlocks).sum();
        sb.append(String.format(Locale.ROOT, "  copies: %s (--replicas %d)%s", placed.isEmpty() ? "none"
                : placed.stream().mapToInt(FileOut::minCopies).min().getAsInt() + " to "
                + placed.stream().mapToInt(FileOut::maxCopies).max().getAsInt() + " per block", replicas,
                short_.isEmpty() ? "" : String.format(Locale.ROOT, "; %d files (%d blocks) SHORT of %d copies",
                        short_.size(), shortBlocks, replicas))).append(nl);
        Map<Integer, long[]> held = relays.held();
        for (RelayOutcomes.Taken t : relays.taken()) {
            long[] h = held.getOrDefault(t.index(), new long[2]);
            sb.append(String.format(Locale.ROOT, "  relay %s: %d blocks, %s%s%n", t.address(), h[0], RelayOutcomes.size(h[1]),
                    t.reserved() < 0 ? "" : ", reserved " + RelayOutcomes.size(t.reserved())));
        }
        for (FileOut f : short_.subList(0, Math.min(short_.size(), MAX_LISTED))) {
            sb.append(String.format(Locale.ROOT, "  SHORT OF COPIES  %s (%d blocks on fewer than %d relays; %d to %d copies)%n",
                    f.name(), f.shortBlocks(), replicas, f.minCopies(), f.maxCopies()));
        }
        if (short_.size() > MAX_LISTED) {
            sb.append(String.format(Locale.ROOT, "  SHORT OF COPIES  %,d more files (--json lists every file)%n",
                    short_.size() - MAX_LISTED));
        }
        relays.reasons().forEach(r -> sb.append("  ").append(r).append(nl));
    }

    /** Relays and what they said, as JSON. */
    static String said(List<RelayOutcomes.Said> said) {
        StringBuilder sb = new StringBuilder("[");
        String sep = "";
        for (RelayOutcomes.Said s : said) {
            sb.append(sep).append("{\"relay\":").append(CollectSummary.quote(s.address())).append(",\"reason\":")
                    .append(CollectSummary.quote(s.reason())).append(",\"text\":").append(CollectSummary.quote(s.text()))
                    .append('}');
            sep = ",";
        }
        return sb.append(']').toString();
    }

    public String toJson() {
        Tally tally = tally();
        List<FileOut> files = tally.files();
        StringBuilder sb = new StringBuilder("{");
        sb.append("\"transfer\":").append(CollectSummary.quote(transferId()));
        sb.append(",\"manifest\":").append(CollectSummary.quote(manifest.toString()));
        sb.append(",\"state\":").append(CollectSummary.quote(state.label()));
        sb.append(",\"complete\":").append(tally.complete());
        sb.append(",\"deadline_reached\":").append(deadlineReached);
        sb.append(String.format(Locale.ROOT, ",\"seconds\":%.3f", seconds));
        sb.append(",\"retain_until\":").append(CollectSummary.quote(retainUntil.toString()));
        sb.append(",\"files\":").append(files.size() + tally.unannounced());
        sb.append(",\"files_out\":").append(files.stream().filter(FileOut::isOut).count());
        sb.append(",\"bytes\":").append(files.stream().mapToLong(FileOut::size).sum());
        sb.append(",\"bytes_out\":").append(files.stream().mapToLong(FileOut::placed).sum());
        sb.append(",\"blocks_placed\":").append(blocks(Announcement.Placement.Relays.class));
        sb.append(",\"blocks_on_no_relay\":").append(blocks(Announcement.Placement.Origin.class));
        sb.append(",\"out\":").append(CollectSummary.quote(files.stream().filter(FileOut::isOut).map(FileOut::name).toList()));
        sb.append(",\"not_out\":").append(CollectSummary.quote(files.stream().filter(f -> !f.isOut()).map(FileOut::name).toList()));
        sb.append(",\"unannounced_files\":").append(tally.unannounced());
        sb.append(",\"unmatched_priorities\":").append(CollectSummary.quote(tally.unmatchedPriorities()));
        sb.append(",\"error\":").append(CollectSummary.quote(error));
        List<FileOut> short_ = files.stream().filter(f -> f.shortBlocks() > 0).toList();
        sb.append(",\"replicas\":").append(replicas);
        sb.append(",\"every_copy\":").append(short_.isEmpty());
        sb.append(",\"short_of_copies\":[");
        String sep = "";
        for (FileOut f : short_) {
            sb.append(sep).append("{\"file\":").append(CollectSummary.quote(f.name())).append(",\"blocks\":")
                    .append(f.shortBlocks()).append('}');
            sep = ",";
        }
        sb.append("],\"copies\":[");
        sep = "";
        for (FileOut f : files) {
            sb.append(sep).append("{\"file\":").append(CollectSummary.quote(f.name())).append(",\"min\":")
                    .append(f.minCopies()).append(",\"max\":").append(f.maxCopies()).append('}');
            sep = ",";
        }
        RelayOutcomes relays = relays();
        Map<Integer, long[]> held = relays.held();
        sb.append("],\"relays\":[");
        sep = "";
        for (RelayOutcomes.Taken t : relays.taken()) {
            long[] h = held.getOrDefault(t.index(), new long[2]);
            sb.append(sep).append("{\"relay\":").append(CollectSummary.quote(t.address())).append(",\"blocks\":")
                    .append(h[0]).append(",\"bytes\":").append(h[1]).append(",\"reserved\":")
                    .append(t.reserved() < 0 ? "null" : t.reserved()).append('}');
            sep = ",";
        }
        sb.append("],\"refused\":").append(said(relays.refused()));
        sb.append(",\"stopped\":").append(said(relays.stopped()));
        sb.append(",\"reasons\":").append(CollectSummary.quote(relays.reasons()));
        return sb.append('}').toString();
    }
}

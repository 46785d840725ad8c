package io.fsp.client.collect;

import io.fsp.extension.Announcement;
import io.fsp.extension.FileSegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A transfer's announcements carried without a control channel (an evacuation manifest, docs/protocol.md §5):
 * the same records FRET announces, for a {@link Collector} that has relays to fetch from and no origin. A file can
 * be collected only if the recorded blocks placed on relays cover it whole; the others (blocks announced
 * {@code origin}, or not announced before the recording ended) are left out and named by {@link #missingFiles}.
 */
public record RecordedTransfer(List<Announcement> announcements) {
    public RecordedTransfer {
        announcements = List.copyOf(announcements);
        if (announcements.isEmpty() || !(announcements.get(0) instanceof Announcement.Transfer)) {
            throw new IllegalArgumentException("recorded transfer: no FSP line (expected: the announcements of a FRET,"
                    + " the FSP line first)");
        }
    }

    public Announcement.Transfer transfer() {
        return (Announcement.Transfer) announcements.get(0);
    }

    /** The recorded FILE lines. */
    public List<Announcement.File> files() {
        return announcements.stream().filter(a -> a instanceof Announcement.File).map(a -> (Announcement.File) a).toList();
    }

    /** By file index, the bytes of the file that recorded blocks placed on relays hold (each block counted once). */
    public Map<Integer, Long> placedBytes() {
        Map<Integer, Long> sizes = new HashMap<>();
        files().forEach(f -> sizes.put(f.index(), f.size()));
        Map<Integer, Long> placed = new HashMap<>();
        Set<Long> seen = new HashSet<>();
        for (Announcement a : announcements) {
            if (a instanceof Announcement.Block b && b.placement() instanceof Announcement.Placement.Relays && seen.add(b.seq())) {
                try { // a block that carries small files holds bytes of each
                    for (FileSegment s : FileSegment.of(b.file(), b.offset(), b.length(), transfer().files(),
                            f -> sizes.getOrDefault(f, -1L))) {
                        placed.merge(s.file(), (long) s.length(), Long::sum);
                    }
                } catch (IllegalArgumentException e) {
                    // a block of files not recorded: none of them is whole
                }
            }
        }
        return placed;
    }

    /** The indices of the files whose every byte lies in a recorded block placed on relays. */
    public Set<Integer> wholeFiles() {
        Map<Integer, Long> placed = placedBytes();
        Set<Integer> whole = new HashSet<>();
        for (Announcement.File f : files()) {
            if (placed.getOrDefault(f.index(), 0L) == f.size()) {
                whole.add(f.index());
            }
        }
        return whole;
    }

    /** The names of the recorded files that are not whole, in index order. */
    public List<String> missingFiles() {
        Set<Integer> whole = wholeFiles();
        List<String> missing = new ArrayList<>();
        for (Announcement.File f : files()) {
            if (!whole.contains(f.index())) {
                missing.add(f.name());
            }
        }
        return missing;
    }

    /** How many files the FSP line counts that no recorded FILE line names (the recording ended before them). */
    public int unrecordedFiles() {
        return transfer().files() - files().size();
    }

    /** How many recorded blocks hold bytes of the files {@code collected} names (each sequence number once). */
    public long blocksOf(Set<Integer> collected) {
        return announcements.stream()
                .filter(a -> a instanceof Announcement.Block b && collected.contains(b.file()))
                .mapToLong(a -> ((Announcement.Block) a).seq()).distinct().count();
    }
}

package io.fsp.client.collect;

import io.fsp.extension.Announcement;
import io.fsp.extension.FileSegment;
import io.fsp.tls.Fingerprint;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TransferId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What an evacuation put where, from its recorded announcements alone: the files with their blocks and copies, and
 * the relays with the blocks placed on each ({@code fsp collect --list}, {@code --check}, {@code fsp release}).
 */
public final class EvacuationInventory {
    /** A relay of the evacuation and the blocks placed on it. */
    public record RelayEntry(int index, String host, int port, Fingerprint fingerprint, List<Long> seqs) {
        public String address() {
            return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
        }
    }

    /**
     * A recorded file: the blocks that hold its bytes and how many relays hold each (fewest and most); {@code whole}
     * when those blocks cover it, so it can be collected (an empty file is whole with no block).
     */
    public record FileEntry(int index, String name, long size, List<Long> seqs, int minCopies, int maxCopies,
                            boolean whole) {
    }

    /** How a file stands against what the relays said they hold: the fewest copies of its blocks, those none holds. */
    public record FileHealth(FileEntry file, int minHeld, List<Long> lost) {
        /** Collectable whole: evacuated whole, and every block still on some relay. */
        public boolean collectable() {
            return file.whole() && lost.isEmpty();
        }
    }

    private final RecordedTransfer recorded;
    private final CapabilityToken token;
    private final Map<Integer, RelayEntry> relays;
    private final Map<Long, List<Integer>> holders;
    private final List<FileEntry> files;

    public EvacuationInventory(List<Announcement> announcements) {
        recorded = new RecordedTransfer(announcements);
        CapabilityToken tok = null;
        Map<Integer, Announcement.Relay> relayLines = new TreeMap<>();
        Map<Integer, List<Long>> placed = new TreeMap<>();
        holders = new LinkedHashMap<>();
        Map<Integer, Long> sizes = new HashMap<>();
        recorded.files().forEach(f -> sizes.put(f.index(), f.size()));
        Map<Integer, List<Long>> fileSeqs = new HashMap<>();
        for (Announcement a : announcements) {
            if (a instanceof Announcement.Token t) {
                tok = t.token();
            } else if (a instanceof Announcement.Relay r) {
                relayLines.put(r.index(), r);
            } else if (a instanceof Announcement.Block b && b.placement() instanceof Announcement.Placement.Relays r
                    && !holders.containsKey(b.seq())) {
                List<Integer> distinct = r.holders().stream().distinct().toList();
                holders.put(b.seq(), distinct);
                distinct.forEach(i -> placed.computeIfAbsent(i, k -> new ArrayList<>()).add(b.seq()));
                try {
                    for (FileSegment s : FileSegment.of(b.file(), b.offset(), b.length(), recorded.transfer().files(),
                            f -> sizes.getOrDefault(f, -1L))) {
                        fileSeqs.computeIfAbsent(s.file(), k -> new ArrayList<>()).add(b.seq());
                    }
                } catch (IllegalArgumentException e) {
                    // a block of files not recorded: none of them is whole (RecordedTransfer says so)
                }
            }
        }
        token = tok;
        relays = new LinkedHashMap<>();
        relayLines.forEach((i, r) -> relays.put(i, new RelayEntry(i, r.host(), r.port(), r.fingerprint(),
                List.copyOf(placed.getOrDefault(i, List.of())))));
        Set<Integer> whole = recorded.wholeFiles();
        files = new ArrayList<>();
        for (Announcement.File f : recorded.files()) {
            List<Long> seqs = List.copyOf(fileSeqs.getOrDefault(f.index(), List.of()));
            int min = seqs.stream().mapToInt(s -> holders.get(s).size()).min().orElse(0);
            int max = seqs.stream().mapToInt(s -> holders.get(s).size()).max().orElse(0);
            files.add(new FileEntry(f.index(), f.name(), f.size(), seqs, min, max, whole.contains(f.index())));
        }
    }

    public TransferId transferId() {
        return recorded.transfer().id();
    }

    /** The token the relays take for this evacuation's blocks, or null if the recording has none. */
    public CapabilityToken token() {
        return token;
    }

    /** The relays in index order, each with the blocks placed on it. */
    public List<RelayEntry> relays() {
        return List.copyOf(relays.values());
    }

    public List<FileEntry> files() {
        return List.copyOf(files);
    }

    /** The blocks placed on relays. */
    public int blocks() {
        return holders.size();
    }

    /** How many files the transfer counts that the recording does not name (it ended before them). */
    public int unrecordedFiles() {
        return recorded.unrecordedFiles();
    }

    /**
     * Each file against what the relays answered: {@code held} by relay index, the blocks each holds; a relay that
     * did not answer is absent, and its copies count as gone.
     */
    public List<FileHealth> health(Map<Integer, Set<Long>> held) {
        List<FileHealth> out = new ArrayList<>();
        for (FileEntry f : files) {
            int min = f.seqs().isEmpty() ? 0 : Integer.MAX_VALUE;
            List<Long> lost = new ArrayList<>();
            for (long seq : f.seqs()) {
                int n = (int) holders.get(seq).stream().filter(r -> held.getOrDefault(r, Set.of()).contains(seq)).count();
                min = Math.min(min, n);
                if (n == 0) {
                    lost.add(seq);
                }
            }
            out.add(new FileHealth(f, min, lost));
        }
        return out;
    }
}

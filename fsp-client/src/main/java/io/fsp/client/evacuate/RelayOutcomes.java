package io.fsp.client.evacuate;

import io.fsp.extension.Announcement;
import io.fsp.extension.FileSegment;
import io.fsp.net.HostPort;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the relays said of a transfer, from its announcements (docs/protocol.md §1): the relays that took it
 * ({@code RELAY}) and what each reserved ({@code SPACE}), those left out and why ({@code REFUSED}), those that
 * stopped taking blocks ({@code STOPPED}), and how many copies the blocks have ({@code BLK} holders, a block
 * announced again counted with every holder named).
 */
public final class RelayOutcomes {
    /** A relay that took the transfer: its address, what it reserved of the bytes declared (-1: no SPACE line). */
    public record Taken(int index, String address, long reserved, long declared) {
    }

    /** A relay left out, or one that stopped: its address, the reason code and what it said. */
    public record Said(String address, String reason, String text) {
    }

    private final Map<Integer, Taken> taken = new TreeMap<>();
    private final List<Said> refused = new ArrayList<>();
    private final List<Said> stopped = new ArrayList<>();
    /** A block: its file, length, and the distinct relays that hold it (a block announced again may name more). */
    private static final class Copies {
        final int file;
        final long offset;
        final int length;
        int[] holders = new int[0];

        Copies(int file, long offset, int length) {
            this.file = file;
            this.offset = offset;
            this.length = length;
        }

        /** The files the block holds bytes of: its first, and the next ones when it carries small files. */
        List<Integer> files(int files, IntToLongFunction sizeOf) {
            try {
                return FileSegment.of(file, offset, length, files, sizeOf).stream().map(FileSegment::file).distinct().toList();
            } catch (IllegalArgumentException e) {
                return List.of(file); // files not announced: counted for the first
            }
        }

        void add(int relay) {
            for (int h : holders) {
                if (h == relay) {
                    return;
                }
            }
            holders = java.util.Arrays.copyOf(holders, holders.length + 1);
            holders[holders.length - 1] = relay;
        }
    }

    /** By block seq, in the order first announced. */
    private final Map<Long, Copies> blocks = new LinkedHashMap<>();
    /** The longest block announced. */
    private long largestBlock;

    public static RelayOutcomes of(List<Announcement> announcements) {
        RelayOutcomes o = new RelayOutcomes();
        announcements.forEach(o::add);
        return o;
    }

    /** Takes one more announcement into account. */
    public void add(Announcement a) {
        if (a instanceof Announcement.Relay r) {
            taken.put(r.index(), new Taken(r.index(), new HostPort(r.host(), r.port()).toString(), -1, -1));
        } else if (a instanceof Announcement.Space s) {
            Taken t = taken.get(s.index());
            taken.put(s.index(), new Taken(s.index(), t == null ? "relay " + s.index() : t.address(), s.reserved(), s.declared()));
        } else if (a instanceof Announcement.Refused r) {
            refused.add(new Said(new HostPort(r.host(), r.port()).toString(), r.reason(), r.text()));
        } else if (a instanceof Announcement.Stopped s) {
            stopped.add(new Said(address(s.index()), s.reason(), s.text()));
        } else if (a instanceof Announcement.Block b) {
            Copies c = blocks.computeIfAbsent(b.seq(), k -> new Copies(b.file(), b.offset(), b.length()));
            largestBlock = Math.max(largestBlock, b.length());
            if (b.placement() instanceof Announcement.Placement.Relays p) {
                p.holders().forEach(c::add);
            }
        }
    }

    /** The relay's address as its RELAY line gave it. */
    public String address(int index) {
        Taken t = taken.get(index);
        return t == null ? "relay " + index : t.address();
    }

    public List<Taken> taken() {
        return List.copyOf(taken.values());
    }

    public List<Said> refused() {
        return List.copyOf(refused);
    }

    public List<Said> stopped() {
        return List.copyOf(stopped);
    }

    /** The bytes one relay needs to hold one copy of every block, as the SPACE lines declare it; -1 if none came. */
    public long declared() {
        return taken.values().stream().mapToLong(Taken::declared).max().orElse(-1);
    }

    /**
     * The copies' worth of bytes the relays reserved: each relay holds at most one copy of a block, and a reservation
     * short of the whole is filled in whole blocks (up to the largest seen, less, is left over).
     */
    public long usableReserved() {
        long declared = declared();
        return taken.values().stream().filter(t -> t.reserved() >= 0).mapToLong(t -> t.reserved() >= declared ? declared
                : Math.max(0, t.reserved() - largestBlock)).sum();
    }

    /** By block seq (in the order first announced): how many distinct relays hold it. */
    public Map<Long, Integer> copies() {
        Map<Long, Integer> out = new LinkedHashMap<>();
        blocks.forEach((seq, b) -> out.put(seq, b.holders.length));
        return out;
    }

    /**
     * By file index: the fewest and the most copies over the blocks that hold its bytes, and how many of them have
     * fewer than {@code replicas}; {@code files} and {@code sizeOf} as the FSP and FILE lines give them.
     */
    public Map<Integer, int[]> copiesByFile(int replicas, int files, IntToLongFunction sizeOf) {
        Map<Integer, int[]> out = new TreeMap<>();
        for (Copies b : blocks.values()) {
            int n = b.holders.length;
            for (int f : b.files(files, sizeOf)) {
                int[] c = out.computeIfAbsent(f, k -> new int[] {n, n, 0});
                c[0] = Math.min(c[0], n);
                c[1] = Math.max(c[1], n);
                c[2] += n < replicas ? 1 : 0;
            }
        }
        return out;
    }

    /** Per relay index: the blocks and bytes it holds. */
    public Map<Integer, long[]> held() {
        Map<Integer, long[]> out = new TreeMap<>();
        taken.keySet().forEach(i -> out.put(i, new long[2]));
        for (Copies b : blocks.values()) {
            for (int i : b.holders) {
                long[] h = out.computeIfAbsent(i, k -> new long[2]);
                h[0]++;
                h[1] += b.length;
            }
        }
        return out;
    }

    /**
     * One line per reason, with the relays it came from: those refused (by reason code), then those that stopped
     * taking blocks.
     */
    public List<String> reasons() {
        List<String> out = new ArrayList<>();
        grouped(refused).forEach((reason, said) -> out.add("relay " + addresses(said) + " refused: " + reason + ": "
                + said.get(0).text()));
        grouped(stopped).forEach((reason, said) -> out.add("relay " + addresses(said) + " stopped taking blocks: "
                + reason + ": " + said.get(0).text()));
        return out;
    }

    private static Map<String, List<Said>> grouped(List<Said> said) {
        Map<String, List<Said>> out = new LinkedHashMap<>();
        said.forEach(s -> out.computeIfAbsent(s.reason(), k -> new ArrayList<>()).add(s));
        return out;
    }

    private static String addresses(List<Said> said) {
        return String.join(", ", said.stream().map(Said::address).distinct().toList());
    }

    private static final Pattern AT_MOST = Pattern.compile("at most (P[0-9A-Z.]+|\\d+[smhd])\\b");

    /**
     * The shortest retention the relays that refused RETENTION_TOO_LONG said they keep ("at most PT24H" or "at most
     * 1d"), as --retain takes it (rounded down to a whole unit); null when none said one this reads.
     */
    public String shortestMaxRetain() {
        Duration shortest = null;
        for (Said s : refused) {
            if (!s.reason().equals("RETENTION_TOO_LONG")) {
                continue;
            }
            Matcher m = AT_MOST.matcher(s.text());
            while (m.find()) {
                Duration d = duration(m.group(1));
                if (d != null && (shortest == null || d.compareTo(shortest) < 0)) {
                    shortest = d;
                }
            }
        }
        return shortest == null || shortest.toSeconds() < 1 ? null : retainText(shortest);
    }

    private static Duration duration(String text) {
        try {
            if (text.startsWith("P")) {
                return Duration.parse(text);
            }
            long n = Long.parseLong(text.substring(0, text.length() - 1));
            return switch (text.charAt(text.length() - 1)) {
                case 's' -> Duration.ofSeconds(n);
                case 'm' -> Duration.ofMinutes(n);
                case 'h' -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
            return null;
        }
    }

    /** {@code d} in the largest whole unit that does not exceed it: 1d, 36h, 90m, 45s. */
    static String retainText(Duration d) {
        long s = d.toSeconds();
        if (s % 86_400 == 0) {
            return s / 86_400 + "d";
        } else if (s % 3600 == 0 || s >= 86_400) {
            return s / 3600 + "h";
        } else if (s % 60 == 0 || s >= 3600) {
            return s / 60 + "m";
        }
        return s + "s";
    }

    /** Bytes in binary units, for the operator. */
    static String size(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        int unit = Math.min(4, (63 - Long.numberOfLeadingZeros(bytes)) / 10);
        return String.format(Locale.ROOT, "%.1f %siB", bytes / (double) (1L << (10 * unit)), "KMGT".charAt(unit - 1));
    }
}

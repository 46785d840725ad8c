package io.fsp.cli.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Two trees compared byte for byte: the same names, each a directory on both sides or a file on both sides, and
 * every file's bytes the same ({@link Files#mismatch}). Nothing but what is on disk is trusted: no digest the
 * transfer computed is used.
 *
 * @param files       regular files in the original
 * @param directories directories below the original's root
 * @param bytes       the size of the original's files together
 * @param differences what differs, by relative name (empty when the trees are identical); at most
 *                    {@value #MAX_DIFFERENCES} are listed
 */
public record TreeComparison(int files, int directories, long bytes, List<String> differences) {
    static final int MAX_DIFFERENCES = 10;

    public boolean identical() {
        return differences.isEmpty();
    }

    /** Compares {@code copy} with {@code original}. */
    public static TreeComparison of(Path original, Path copy) throws IOException {
        Map<String, Path> want = entries(original);
        Map<String, Path> got = entries(copy);
        List<String> differences = new ArrayList<>();
        int files = 0;
        int directories = 0;
        long bytes = 0;
        for (Map.Entry<String, Path> e : want.entrySet()) {
            String name = e.getKey();
            Path a = e.getValue();
            Path b = got.get(name);
            boolean dir = Files.isDirectory(a);
            if (dir) {
                directories++;
            } else {
                files++;
                bytes += Files.size(a);
            }
            if (b == null) {
                differences.add(name + ": missing");
            } else if (dir != Files.isDirectory(b)) {
                differences.add(name + ": " + (dir ? "a file, not a directory" : "a directory, not a file"));
            } else if (!dir) {
                long at = Files.mismatch(a, b);
                if (at >= 0) {
                    differences.add(name + ": differs at byte " + at + " (sizes " + Files.size(a) + ", "
                            + Files.size(b) + ")");
                }
            }
        }
        for (String name : got.keySet()) {
            if (!want.containsKey(name)) {
                differences.add(name + ": not in the original");
            }
        }
        return new TreeComparison(files, directories, bytes,
                List.copyOf(differences.subList(0, Math.min(MAX_DIFFERENCES, differences.size()))));
    }

    /** Every path below {@code root} by its relative name ('/' between parts). */
    private static Map<String, Path> entries(Path root) throws IOException {
        Map<String, Path> out = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            walk.filter(p -> !p.equals(root)).forEach(p -> out.put(root.relativize(p).toString().replace('\\', '/'), p));
        }
        return out;
    }
}

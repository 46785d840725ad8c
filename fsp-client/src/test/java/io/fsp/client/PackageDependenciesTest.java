package io.fsp.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The client's packages depend on each other one way only: read from the sources' imports and qualified names. */
class PackageDependenciesTest {
    private static final Path SOURCES = Path.of("src/main/java/io/fsp/client");
    private static final Pattern REFERENCE = Pattern.compile("\\bio\\.fsp\\.client\\.(\\w+)\\.[A-Z]");

    @Test
    void clientPackagesFormNoCycle() throws IOException {
        Map<String, Set<String>> uses = dependencies();
        assertTrue(uses.keySet().containsAll(List.of("cli", "collect", "control", "journal", "verify", "write")), uses.toString());
        assertEquals(List.of(), cycles(uses), "package cycles in fsp-client: " + uses);
    }

    /** Package (under io.fsp.client) to the packages its sources name. */
    private static Map<String, Set<String>> dependencies() throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                Path dir = SOURCES.relativize(file.getParent());
                if (dir.getNameCount() != 1 || dir.toString().isEmpty()) {
                    continue;
                }
                String pkg = dir.toString();
                Set<String> used = uses.computeIfAbsent(pkg, k -> new TreeSet<>());
                Matcher m = REFERENCE.matcher(Files.readString(file));
                while (m.find()) {
                    if (!m.group(1).equals(pkg)) {
                        used.add(m.group(1));
                    }
                }
            }
        }
        return uses;
    }

    /** Each package that can reach itself, with the path that does. */
    private static List<String> cycles(Map<String, Set<String>> uses) {
        List<String> found = new ArrayList<>();
        for (String start : uses.keySet()) {
            List<String> path = new ArrayList<>(List.of(start));
            if (reaches(start, start, uses, path, new TreeSet<>())) {
                found.add(String.join(" -> ", path));
            }
        }
        return found;
    }

    private static boolean reaches(String from, String target, Map<String, Set<String>> uses, List<String> path, Set<String> seen) {
        for (String next : uses.getOrDefault(from, Set.of())) {
            path.add(next);
            if (next.equals(target) || seen.add(next) && reaches(next, target, uses, path, seen)) {
                return true;
            }
            path.remove(path.size() - 1);
        }
        return false;
    }
}

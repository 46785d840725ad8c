package io.fsp.server;

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

/**
 * The striping engine knows nothing of FTP: {@code stripe} names no class of {@code ftp} or its sub-packages,
 * and neither it nor the packages it uses lie on a cycle. Read from the sources' imports and qualified names.
 */
class PackageDependenciesTest {
    private static final String ROOT = "(server)";
    private static final Path SOURCES = Path.of("src/main/java/io/fsp/server");
    /** A qualified name of a class in a package under io.fsp.server, e.g. {@code io.fsp.server.ftp.command.Foo}. */
    private static final Pattern REFERENCE = Pattern.compile("\\bio\\.fsp\\.server\\.((?:[a-z]\\w*\\.)*)[A-Z]");

    @Test
    void theStripingEngineUsesNothingOfFtp() throws IOException {
        Map<String, Set<String>> uses = dependencies();
        assertTrue(uses.containsKey("stripe") && uses.containsKey("ftp.command"), uses.toString());
        assertTrue(uses.get("ftp.command").contains("stripe"), "the commands drive the engine: " + uses);
        List<String> ftp = uses.get("stripe").stream().filter(p -> p.equals("ftp") || p.startsWith("ftp.")).toList();
        assertEquals(List.of(), ftp, "stripe depends on FTP packages");
    }

    @Test
    void noPackageTheEngineReachesLiesOnACycle() throws IOException {
        Map<String, Set<String>> uses = dependencies();
        Set<String> reached = new TreeSet<>();
        reach("stripe", uses, reached);
        reached.add("stripe");
        List<String> found = new ArrayList<>();
        for (String start : reached) {
            List<String> path = new ArrayList<>(List.of(start));
            if (reaches(start, start, uses, path, new TreeSet<>())) {
                found.add(String.join(" -> ", path));
            }
        }
        assertEquals(List.of(), found, "package cycles through the striping engine: " + uses);
    }

    /** Package (below io.fsp.server, {@value #ROOT} for io.fsp.server itself) to the packages its sources name. */
    private static Map<String, Set<String>> dependencies() throws IOException {
        Map<String, Set<String>> uses = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String pkg = name(SOURCES.relativize(file.getParent()).toString().replace('/', '.'));
                Set<String> used = uses.computeIfAbsent(pkg, k -> new TreeSet<>());
                Matcher m = REFERENCE.matcher(Files.readString(file));
                while (m.find()) {
                    String named = name(m.group(1).isEmpty() ? "" : m.group(1).substring(0, m.group(1).length() - 1));
                    if (!named.equals(pkg)) {
                        used.add(named);
                    }
                }
            }
        }
        return uses;
    }

    private static String name(String pkg) {
        return pkg.isEmpty() ? ROOT : pkg;
    }

    private static void reach(String from, Map<String, Set<String>> uses, Set<String> reached) {
        for (String next : uses.getOrDefault(from, Set.of())) {
            if (reached.add(next)) {
                reach(next, uses, reached);
            }
        }
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

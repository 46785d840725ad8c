package io.fsp.it.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Checks a BagIt bag (RFC 8493) the way an archive would, with {@code sha256sum} and by counting. */
public final class Bags {
    private Bags() {
    }

    /**
     * The payload and tag manifests check out with {@code sha256sum --check --strict}, every file under data/ is
     * listed and nothing else, Payload-Oxum counts what data/ holds, bagit.txt declares 1.0 and UTF-8.
     *
     * @return the payload's names under the bag (data/…)
     */
    public static List<String> assertValid(Path bag) throws Exception {
        for (String m : List.of("manifest-sha256.txt", "tagmanifest-sha256.txt")) {
            Process p = new ProcessBuilder("sha256sum", "--check", "--strict", m).directory(bag.toFile())
                    .redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.waitFor(), m + ": " + output);
        }
        List<String> listed = new ArrayList<>();
        for (String line : Files.readAllLines(bag.resolve("manifest-sha256.txt"))) {
            listed.add(line.substring(66));
        }
        long bytes = 0;
        List<String> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(bag.resolve("data"))) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                files.add(bag.relativize(p).toString());
                bytes += Files.size(p);
            }
        }
        assertEquals(files.stream().sorted().toList(), listed.stream().sorted().toList(), "every payload file listed, nothing else");
        String info = Files.readString(bag.resolve("bag-info.txt"));
        assertTrue(info.contains("Payload-Oxum: " + bytes + "." + files.size() + "\n"), info);
        assertTrue(info.matches("(?s)Bagging-Date: \\d{4}-\\d\\d-\\d\\d\nExternal-Identifier: [0-9a-f]{16}\n.*"), info);
        assertEquals("BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n", Files.readString(bag.resolve("bagit.txt")));
        return files;
    }
}

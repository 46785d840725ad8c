package io.fsp.cli.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoTreeTest {
    @TempDir
    Path dir;

    @Test
    void manySmallFilesInSeveralDirectoriesAndAFewLargeOnesMakeTheTotal() throws IOException {
        long total = 96L << 20;
        DemoTree.Shape shape = DemoTree.generate(dir.resolve("t"), total, 400, 42);
        Map<Path, Long> sizes = sizes(dir.resolve("t"));

        assertEquals(total, sizes.values().stream().mapToLong(Long::longValue).sum());
        assertEquals(total, shape.bytes());
        assertEquals(sizes.size(), shape.files());
        List<Long> small = sizes.values().stream().filter(s -> s <= DemoTree.SMALL_MAX).toList();
        List<Long> large = sizes.values().stream().filter(s -> s >= 8L << 20).toList();
        assertEquals(400, small.size(), "small files");
        assertEquals(shape.largeFiles(), large.size(), "large files");
        assertTrue(large.size() >= 2 && large.size() <= 4, "about 40 MiB each: " + large);
        assertEquals(sizes.size(), small.size() + large.size(), "nothing between small and large: " + sizes.values());
        assertEquals(shape.smallBytes(), small.stream().mapToLong(Long::longValue).sum());
        assertTrue(small.contains(0L), "an empty file");
        assertTrue(small.stream().filter(s -> s < 16 << 10).count() > small.stream().filter(s -> s >= 48 << 10).count(),
                "small files are mostly small: " + small);

        Map<Path, Long> perDirectory = sizes.keySet().stream()
                .collect(Collectors.groupingBy(Path::getParent, TreeMap::new, Collectors.counting()));
        assertTrue(perDirectory.size() >= 6, "several directories: " + perDirectory);
        assertTrue(Files.isDirectory(dir.resolve("t/empty-dir")));
        assertTrue(sizes.keySet().stream().anyMatch(p -> p.toString().contains("日本語")));
        assertTrue(sizes.keySet().stream().anyMatch(p -> p.toString().contains("nested/deeper/données-ü")));
        try (Stream<Path> walk = Files.walk(dir.resolve("t"))) {
            assertEquals(shape.directories(), walk.filter(Files::isDirectory).count() - 1);
        }
    }

    @Test
    void theSameSeedMakesTheSameTreeAnotherSeedAnother() throws IOException {
        DemoTree.generate(dir.resolve("a"), 3L << 20, 50, 42);
        DemoTree.generate(dir.resolve("b"), 3L << 20, 50, 42);
        DemoTree.generate(dir.resolve("c"), 3L << 20, 50, 43);

        assertTrue(TreeComparison.of(dir.resolve("a"), dir.resolve("b")).identical());
        assertFalse(TreeComparison.of(dir.resolve("a"), dir.resolve("c")).identical());
    }

    @Test
    void smallFilesGiveWayWhenTheTotalIsSmall() throws IOException {
        DemoTree.Shape shape = DemoTree.generate(dir.resolve("t"), 1L << 20, 1000, 42);

        assertEquals(1L << 20, sizes(dir.resolve("t")).values().stream().mapToLong(Long::longValue).sum());
        assertEquals(1000, shape.smallFiles());
        assertTrue(shape.smallBytes() <= 1L << 19, "at most half: " + shape.smallBytes());
        assertEquals(1, shape.largeFiles());
    }

    @Test
    void theLocalCopyCopiesEveryFileAndTheComparisonSeesOneChangedByte() throws IOException {
        Path original = dir.resolve("t");
        DemoTree.Shape shape = DemoTree.generate(original, 5L << 20, 120, 7);
        LocalCopy copy = LocalCopy.of(original, dir.resolve("copy"));

        assertEquals(shape.files(), copy.files());
        assertEquals(shape.bytes(), copy.bytes());
        assertTrue(copy.seconds() > 0);
        TreeComparison same = TreeComparison.of(original, dir.resolve("copy"));
        assertTrue(same.identical(), same.differences().toString());
        assertEquals(shape.files(), same.files());
        assertEquals(shape.directories(), same.directories());
        assertEquals(shape.bytes(), same.bytes());

        Path victim = dir.resolve("copy").resolve(sizes(dir.resolve("copy")).entrySet().stream()
                .filter(e -> e.getValue() > 1000).findFirst().orElseThrow().getKey());
        byte[] bytes = Files.readAllBytes(victim);
        bytes[1000] ^= 1;
        Files.write(victim, bytes);
        Files.delete(dir.resolve("copy/empty-dir"));
        Files.writeString(dir.resolve("copy/extra.txt"), "x");
        TreeComparison changed = TreeComparison.of(original, dir.resolve("copy"));

        assertFalse(changed.identical());
        String name = dir.resolve("copy").relativize(victim).toString();
        assertEquals(Stream.of("empty-dir: missing", name + ": differs at byte 1000 (sizes " + bytes.length + ", "
                        + bytes.length + ")", "extra.txt: not in the original").sorted().toList(),
                changed.differences().stream().sorted().toList());
    }

    private static Map<Path, Long> sizes(Path root) throws IOException {
        Map<Path, Long> out = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                out.put(root.relativize(p), Files.size(p));
            }
        }
        return out;
    }
}

package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.cli.demo.LoopbackWork;
import io.fsp.it.harness.FspCommand;
import io.fsp.it.harness.TreeDigests;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code fsp demo}, the README's main job, as a newcomer runs it (smaller): a server and three relays on loopback
 * (through bin/, which builds what is missing), a tree of many small files and a few large ones striped through
 * them, and a JSON object with FSP's figures beside a local copy's. The tree it kept is compared here again,
 * without the demo's own comparison.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES) // the first launch of a relay or the server may build it
class DemoIT {

    @Test
    void theTreeArrivesIdenticalAndTheSummaryCarriesBothFigures() throws Exception {
        FspCommand.Result run = FspCommand.run(List.of("demo", "--size-mb", "40", "--small-files", "300", "--json", "--keep"));
        Matcher kept = Pattern.compile("fsp demo: kept (\\S+)").matcher(run.err());
        assertTrue(kept.find(), run.toString());
        Path work = Path.of(kept.group(1));
        try {
            assertEquals(0, run.exit(), run.toString());
            String json = run.out().strip();
            assertEquals(1, json.lines().count(), "one JSON object on stdout: " + json);

            Path original = work.resolve("data/dataset");
            Path received = work.resolve("received");
            Map<String, String> want = TreeDigests.of(original);
            assertEquals(want, TreeDigests.of(received));
            assertEquals(want, TreeDigests.of(work.resolve("local-copy")));
            List<Long> sizes;
            try (Stream<Path> walk = Files.walk(received)) {
                sizes = walk.filter(Files::isRegularFile).map(p -> p.toFile().length()).toList();
            }
            long small = sizes.stream().filter(s -> s <= 64 << 10).count();
            long large = sizes.stream().filter(s -> s >= 8 << 20).count();
            assertEquals(300, small, "small files received");
            assertTrue(large >= 1, "large files received: " + sizes.stream().filter(s -> s > 64 << 10).toList());
            assertEquals(sizes.size(), small + large);
            assertEquals(40L << 20, sizes.stream().mapToLong(Long::longValue).sum());
            long directories;
            try (Stream<Path> walk = Files.walk(received)) {
                directories = walk.filter(Files::isDirectory).count() - 1;
            }
            assertTrue(directories >= 6, "several directories: " + directories);

            String demo = json.substring(json.indexOf(",\"demo\":{"));
            assertEquals(sizes.size(), number(demo, "files"), demo);
            assertEquals(directories, number(demo, "directories"), demo);
            assertEquals(40L << 20, number(demo, "bytes"), demo);
            assertEquals(300, number(demo, "small_files"), demo);
            String fsp = object(demo, "fsp");
            String copy = object(demo, "local_copy");
            assertTrue(number(fsp, "seconds") > 0 && number(fsp, "mb_per_s") > 0, fsp);
            assertTrue(number(copy, "seconds") > 0 && number(copy, "mb_per_s") > 0, copy);
            assertTrue(copy.contains("\"method\":\"Files.copy\""), copy);
            assertEquals(40L << 20, number(copy, "bytes"), copy);
            assertEquals((40L << 20) / 1e6 / number(fsp, "seconds"), number(fsp, "mb_per_s"), 0.1, fsp);
            // 40 MiB in blocks of at most 1 MiB; the small files share theirs
            assertTrue(number(demo, "blocks") >= 40 && number(demo, "blocks") < sizes.size() / 2, demo);
            assertEquals(number(demo, "blocks"), number(demo, "blocks_verified"), demo);
            Matcher sources = Pattern.compile("\"relay:\\d+\":(\\d+)").matcher(object(demo, "sources"));
            long fromRelays = 0;
            while (sources.find()) {
                fromRelays += Long.parseLong(sources.group(1));
            }
            assertEquals(number(demo, "blocks"), fromRelays, demo);
            assertTrue(demo.contains("\"identical\":true,\"differences\":[]"), demo);
            assertTrue(demo.endsWith("\"verdict\":\"OK\"}}"), demo);
        } finally {
            LoopbackWork.deleteTree(work);
        }
    }

    /** The first number under {@code "key":} in {@code json}. */
    private static double number(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":([0-9.]+)").matcher(json);
        assertTrue(m.find(), key + " in " + json);
        return Double.parseDouble(m.group(1));
    }

    /** The object (without objects inside) under {@code "key":}. */
    private static String object(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":(\\{[^{}]*})").matcher(json);
        assertTrue(m.find(), key + " in " + json);
        return m.group(1);
    }
}

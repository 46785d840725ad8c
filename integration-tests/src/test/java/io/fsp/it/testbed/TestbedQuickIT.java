package io.fsp.it.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/bench-testbed --quick}: the paper's topology in network namespaces, one striped get of a few MiB over
 * relays 1–2 plus the direct path, cold (it starts the client agent) and warm (the agent answers), received
 * byte-identical each time. Needs root and {@code ip netns}; skipped otherwise.
 */
class TestbedQuickIT {

    @Test
    void quickScenarioIsByteIdentical(@TempDir Path out) throws Exception {
        assumeTrue(Testbed.isRoot(), "testbed skipped: needs root (network namespaces and tc)");
        assumeTrue(Testbed.runs("ip", "netns", "list") && Testbed.runs("tc", "-V"), "testbed skipped: 'ip netns' or 'tc' not available");
        Path script = Path.of("").toAbsolutePath().resolve("testbed/testbed.sh");
        assumeTrue(Files.isExecutable(script), "testbed skipped: " + script + " missing");

        Path log = out.resolve("testbed.log");
        Process p = new ProcessBuilder(script.toString(), "--quick", "--out", out.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = p.waitFor(120, TimeUnit.SECONDS);
        if (!ended) {
            p.destroy(); // the script's trap tears the namespaces down
            p.waitFor(20, TimeUnit.SECONDS);
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertTrue(ended, "testbed --quick did not finish in 120 s:\n" + output);
        assertEquals(0, p.exitValue(), "testbed --quick failed:\n" + output);
        List<String> results = Files.readAllLines(out.resolve("results.tsv"));
        // one result line per agent mode: cold (the command starts the agent), then warm (it answers)
        assertEquals(3, results.size(), "one header and a cold and a warm result line expected:\n" + results);
        for (int i = 1; i < results.size(); i++) {
            String[] fields = results.get(i).split("\t");
            assertEquals(List.of("cold", "warm").get(i - 1), fields[9], "agent mode of " + results.get(i));
            assertEquals("yes", fields[6], "received file is not byte-identical:\n" + output);
            assertTrue(Double.parseDouble(fields[3]) > 0, "no time for the end of striping: " + results.get(i));
        }
        assertTrue(Testbed.runs("ip", "netns", "list") && !namespaceLeft(), "testbed left namespaces behind");
    }

    private static boolean namespaceLeft() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true).start();
        String list = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return list.lines().anyMatch(l -> l.startsWith("tb-"));
    }
}

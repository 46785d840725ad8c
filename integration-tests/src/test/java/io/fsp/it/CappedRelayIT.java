package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import io.fsp.relay.net.RateLimits;
import io.fsp.testkit.relay.Fault;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fsp get} (a real client process) through relays capped per transfer: the transfer takes about as long as
 * the caps say, though the client fetches over several connections per relay, and {@code --progress-json} prints a
 * line each second while it runs.
 */
@Timeout(300)
class CappedRelayIT {
    private static final int MIB = 1 << 20;
    private static final Pattern PROGRESS = Pattern.compile("\\{\"event\":\"progress\",\"seconds\":([0-9.]+),"
            + "\"bytes_done\":(\\d+),\"bytes_total\":(\\d+),\"bytes_per_s\":(\\d+)}");

    @TempDir
    Path dir;

    @Test
    void getThroughCappedRelaysTakesAsLongAsTheCapsSayAndReportsProgress() throws Exception {
        long cap = 256 * 1024; // per transfer, at each of the two relays
        int size = 6 * MIB;
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L * MIB, c -> c.withRates(new RateLimits(0, cap)),
                Map.of(), new Fault[0], new Fault[0])) {
            TreeDigests.random(rig.root().resolve("six.bin"), size, 7);
            Path dest = dir.resolve("six.copy");
            String classPath = System.getProperty("fsp.it.classpath");
            if (classPath == null || classPath.isBlank() || classPath.startsWith("${")) {
                classPath = System.getProperty("java.class.path");
            }
            ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", classPath, "io.fsp.cli.FspCli", "get",
                    "fsp://" + StripeRig.USER + "@127.0.0.1:" + rig.port() + "/six.bin", "-o", dest.toString(),
                    "--trust", rig.server().fingerprint().toString(), "--block-size", "256k", "--streams", "4",
                    "--progress-json", "--json");
            pb.environment().put("FSP_PASSWORD", StripeRig.PASSWORD);
            Path log = dir.resolve("get.log");
            pb.redirectErrorStream(false).redirectOutput(log.toFile()).redirectError(dir.resolve("get.err").toFile());
            Process client = pb.start();
            assertTrue(client.waitFor(200, TimeUnit.SECONDS), "fsp get did not end");
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            assertEquals(0, client.exitValue(), lines + " " + Files.readString(dir.resolve("get.err")));
            assertEquals(TreeDigests.sha256(rig.root().resolve("six.bin")), TreeDigests.sha256(dest));

            String summary = lines.get(lines.size() - 1);
            assertTrue(summary.startsWith("{\"transfer\":") && summary.contains("\"bytes\":" + size), summary);
            // Two relays, each letting the transfer have 256 KiB/s: 6 MiB need about 12 s (the client's own clock,
            // from its start to its last block verified; uncapped, the same get took 4.1 s, 3 of them to start).
            Matcher took = Pattern.compile("\"seconds\":([0-9.]+)").matcher(summary);
            assertTrue(took.find(), summary);
            double seconds = Double.parseDouble(took.group(1));
            double expected = (double) size / (2 * cap);
            System.out.printf("6 MiB through two relays capped at 256 KiB/s per transfer: %.2f s (cap: %.2f s)%n",
                    seconds, expected);
            assertTrue(seconds >= 0.7 * expected, seconds + " s");
            List<long[]> progress = new ArrayList<>();
            for (String line : lines.subList(0, lines.size() - 1)) {
                Matcher m = PROGRESS.matcher(line);
                assertTrue(m.matches(), "not a progress line: " + line);
                progress.add(new long[] {Long.parseLong(m.group(2)), Long.parseLong(m.group(3))});
            }
            assertTrue(progress.size() >= 2, "a line each second of a transfer of about " + expected + " s: " + lines);
            for (int i = 1; i < progress.size(); i++) {
                assertTrue(progress.get(i)[0] >= progress.get(i - 1)[0], "bytes done never go back: " + lines);
            }
            long[] last = progress.get(progress.size() - 1);
            assertEquals(size, last[1], "the total, once announced: " + lines);
            assertTrue(last[0] <= size, lines.toString());
        }
    }
}

package io.fsp.it.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/bench-testbed --wan} in short: a server, a client and six relays on the delay line at PlanetLab
 * locations ({@link InternetLocations}: two relays near the server, two near the client, two elsewhere), 100
 * Mbit/s each; the relays join a Meridian overlay over UDP, the server selects relays by MCQ through it for a
 * client that asks for two within 60 ms of the server and 1.5 × RTT(server, client) of itself (only the two near the
 * server are). The relays it chose satisfy both bounds by ping, every one came from the overlay, and the striped get through them arrives
 * byte-identical. Needs root and TAP devices; skipped otherwise.
 */
class InternetIT {
    /** Relays "near" an end are within this of it ({@link InternetLocations}): 18 and 26 ms from the server here. */
    private static final double NEAR_MS = 40;
    /**
     * The bound asked towards the server: above NEAR_MS so that a ping slowed by the loaded machine does not fail a
     * relay the overlay rightly chose, below the 92 ms of the nearest relay outside the server's group.
     */
    private static final double NEAR_SENDER_MS = 60;
    private static final long BYTES = 8L << 20;

    @TempDir
    Path work;

    /** The server's and the overlay entry's logs, for a failure's message. */
    private String logs() throws java.io.IOException {
        StringBuilder out = new StringBuilder();
        for (String name : List.of("server-2121", "r1", "r2")) {
            out.append("--- ").append(name).append(".log\n").append(Files.readString(work.resolve(name + ".log")));
        }
        return out.toString();
    }

    @Test
    void relaysChosenByMcqSatisfyTheBoundsByPingAndCarryAStripedGet() throws Exception {
        String missing = DelayLine.missingRequirement();
        assumeTrue(missing == null, () -> "Internet-like testbed skipped: " + missing);
        String classPath = System.getProperty("fsp.it.classpath", "");
        if (classPath.isBlank() || classPath.startsWith("${")) {
            classPath = System.getProperty("java.class.path");
        }
        classPath = Path.of("target", "test-classes").toAbsolutePath() + java.io.File.pathSeparator + classPath;
        InternetLocations at = InternetLocations.planetLab(2, NEAR_MS, 150, 250, 1);
        double nearClientMs = Math.round(1.5 * at.serverClientMs());
        String prefix;
        long started = System.nanoTime();
        try (InternetTestbed testbed = InternetTestbed.start(WanRig.Programs.classPath(classPath), classPath, work,
                at, 100, 50, null, null)) {
            prefix = testbed.rig.line.prefix();
            Path source = testbed.rig.dataFile("one.bin", BYTES);
            testbed.startSelectingServer(2121);
            InternetTestbed.Overlay overlay = testbed.awaitOverlay(60);
            double ready = (System.nanoTime() - started) / 1e9;
            Path dest = work.resolve("received.bin");
            String[] ask = {"--relays", "2", "--near-sender", Long.toString((long) NEAR_SENDER_MS), "--near-client",
                Long.toString((long) nearClientMs)};
            WanRig.Run run = testbed.rig.get(2121, "one.bin", dest, ask);
            assertEquals(-1, Files.mismatch(source, dest), "received file differs from the original");
            List<InternetTestbed.Choice> choices = testbed.choices(testbed.rig.serverLog(2121));
            if (choices.size() == 1 && choices.get(0).relays().isEmpty()) {
                // An answer can come back empty when the loaded machine slows the entry's probes (docs/testbed.md):
                // a client would ask again; the second answer must hold.
                System.out.println("internet: the first selection found no relay, asking once more: " + choices);
                run = testbed.rig.get(2121, "one.bin", dest, ask);
                choices = testbed.choices(testbed.rig.serverLog(2121));
            }
            double[][] rtts = testbed.pingRtts(10);
            System.out.printf(Locale.ROOT, "internet: locations %s, overlay %s after %.1f s (ready %.1f s); get %.2f s;"
                    + " choices %s; relay RTTs to server/client by ping %s%n",
                    java.util.Arrays.toString(at.locations()), java.util.Arrays.toString(overlay.known()),
                    overlay.seconds(), ready, run.wallSeconds(), choices, java.util.Arrays.deepToString(rtts));
            System.out.println("internet: " + InternetBench.ringAccuracy(testbed, overlay));
            assertEquals(-1, Files.mismatch(source, dest), "received file differs from the original");
            assertFalse(choices.isEmpty(), "no selection logged:\n" + testbed.rig.serverLog(2121));
            InternetTestbed.Choice choice = choices.get(choices.size() - 1);
            assertFalse(choice.relays().isEmpty(), "the overlay found no relay: " + choice + "\n" + logs());
            assertEquals(choice.relays().size(), choice.fromOverlay(), "every relay from the overlay: " + choice);
            assertTrue(choice.satisfied(rtts), "a chosen relay is outside the bounds by ping: " + choice + ", RTTs "
                    + java.util.Arrays.deepToString(rtts));
            assertTrue(run.output().contains("\"relay:0\""), "blocks came through the relays:\n" + run.output());
        }
        assertTrue(DelayLine.existingNamespaces().stream().noneMatch(n -> n.startsWith(prefix)),
                "namespaces left behind: " + DelayLine.existingNamespaces());
    }
}

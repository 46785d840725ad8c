package io.fsp.it.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The delay line in short: three namespaces with round-trip times of 20, 50 and 80 ms between them, each pair's
 * median ping within 5 % of its target, and one iperf3 stream through a 50 Mbit/s tbf link at its rate within 10 %;
 * jitter that spreads round trips but keeps each pair's frames in order.
 * Needs root and TAP devices; skipped otherwise.
 */
class DelayLineIT {
    private static final double RATE_MBIT = 50;

    @Test
    void pairsHaveTheirRoundTripTimesAndShapedLinksTheirRate() throws Exception {
        String missing = DelayLine.missingRequirement();
        assumeTrue(missing == null, () -> "delay line skipped: " + missing);
        double[][] rtt = {{0, 20, 50}, {20, 0, 80}, {50, 80, 0}};
        String prefix;
        try (DelayLine line = DelayLine.start(List.of("a", "b", "c"), rtt, 0)) {
            prefix = line.prefix();
            double cpuBefore = line.forwarderCpuSeconds();
            for (int i = 0; i < 3; i++) {
                for (int j = i + 1; j < 3; j++) {
                    DelayLine.Pings pings = line.ping(i, j, 20, 0.05);
                    double median = pings.median();
                    System.out.printf(Locale.ROOT, "delay line: %s -> %s rtt target %.0f ms, median %.2f ms, mean %.3f"
                            + " ms, max %.2f ms%n", line.name(i), line.name(j), rtt[i][j], median, pings.meanMs(),
                            pings.percentile(1));
                    assertEquals(rtt[i][j], median, rtt[i][j] * 0.05, line.name(i) + " -> " + line.name(j)
                            + ": median ping RTT off target by more than 5 %");
                }
            }
            line.shape(0, RATE_MBIT, 20);
            line.shape(1, RATE_MBIT, 20);
            double mbit = line.iperf3Mbit(0, 1, 4, 1);
            double cpu = line.forwarderCpuSeconds() - cpuBefore;
            System.out.printf(Locale.ROOT, "delay line: iperf3 a -> b over %.0f Mbit/s at 20 ms: %.1f Mbit/s;"
                    + " forwarder CPU %.2f s%n%s", RATE_MBIT, mbit, cpu, line.forwarderStats());
            assertEquals(RATE_MBIT, mbit, RATE_MBIT * 0.10, "iperf3 throughput not within 10 % of the shaped rate");
        }
        assertTrue(DelayLine.existingNamespaces().stream().noneMatch(n -> n.startsWith(prefix)),
                "namespaces left behind: " + DelayLine.existingNamespaces());
    }

    @Test
    void jitterSpreadsRoundTripsWithoutReorderingAPairsFrames() throws Exception {
        String missing = DelayLine.missingRequirement();
        assumeTrue(missing == null, () -> "delay line skipped: " + missing);
        try (DelayLine line = DelayLine.start(List.of("a", "b"), new double[][] {{0, 20}, {20, 0}}, 16)) {
            // requests 2 ms apart, each way 10 +- 8 ms: replies would overtake each other if jitter reordered frames
            DelayLine.Pings pings = line.ping(0, 1, 200, 0.002);
            double spread = pings.percentile(1) - pings.sortedMs()[0];
            System.out.printf(Locale.ROOT, "delay line: jitter 16 ms at 20 ms: min %.2f, median %.2f, max %.2f ms,"
                    + " replies in order: %s%n", pings.sortedMs()[0], pings.median(), pings.percentile(1),
                    pings.inOrder());
            assertTrue(spread > 6, "round trips spread over " + spread + " ms only: jitter not applied");
            assertTrue(pings.inOrder(), "ping replies arrived out of order: jitter reordered frames");
        }
    }
}

package io.fsp.it.testbed;

import io.fsp.testkit.meridian.sim.LatencyMatrix;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * {@code bin/bench-delayline}: the delay line's validation table. For each round-trip time, two namespaces joined by
 * the delay line; for each rate, tbf on both ends, ping RTT (median, p99) and one iperf3 TCP stream with the
 * namespaces' TCP buffers sized for the bandwidth-delay product, and the forwarder's CPU time over the row. Then
 * the scale of the wide-area testbed: {@code --matrix-nodes} namespaces with RTTs from the PlanetLab matrix, every
 * pair pinged.
 *
 * <p>Arguments: {@code [--rtts 1,10,50,100,200] [--rates 50,100,200] [--seconds 10] [--omit 3] [--pings 200]
 * [--queue-ms 50] [--matrix-nodes 14] [--only table|matrix]}.
 */
public final class DelayLineBench {
    /** From the integration-tests module directory, where bin/bench-delayline runs this. */
    private static final Path PLANETLAB = Path.of("..", "fsp-testkit", "src", "test", "resources", "latency",
            "planetlab-303-rtt-ms.txt.gz");
    private DelayLineBench() {
    }

    public static void main(String[] args) throws Exception {
        double[] rtts = {1, 10, 50, 100, 200};
        double[] rates = {50, 100, 200};
        int seconds = 10;
        int omit = 3;
        int pings = 200;
        double queueMs = 50;
        int matrixNodes = 14;
        String only = "";
        for (int i = 0; i < args.length; i += 2) {
            String value = i + 1 < args.length ? args[i + 1] : usage("missing value for " + args[i]);
            switch (args[i]) {
                case "--rtts" -> rtts = numbers(value);
                case "--rates" -> rates = numbers(value);
                case "--seconds" -> seconds = Integer.parseInt(value);
                case "--omit" -> omit = Integer.parseInt(value);
                case "--pings" -> pings = Integer.parseInt(value);
                case "--queue-ms" -> queueMs = Double.parseDouble(value);
                case "--matrix-nodes" -> matrixNodes = Integer.parseInt(value);
                case "--only" -> only = value;
                default -> usage("unknown option " + args[i]);
            }
        }
        String missing = DelayLine.missingRequirement();
        if (missing != null) {
            System.err.println("bench-delayline: " + missing);
            System.exit(2);
        }
        if (!only.equals("matrix")) {
            table(rtts, rates, seconds, omit, pings, queueMs);
        }
        if (!only.equals("table") && matrixNodes > 0) {
            matrix(matrixNodes);
        }
    }

    private static void table(double[] rtts, double[] rates, int seconds, int omit, int pings, double queueMs)
            throws Exception {
        System.out.printf(Locale.ROOT, "# Delay line: two namespaces, ping (%d at 10 ms intervals, unloaded) and one"
                + " iperf3 TCP stream (%d s after %d s omitted) per row%n", pings, seconds, omit);
        System.out.printf(Locale.ROOT, "# tbf on both TAP devices, queue %.0f ms at the rate; tcp_rmem = \"4096"
                + " 131072 MAX\", tcp_wmem = \"4096 16384 MAX\" in both namespaces, MAX = max(4 MiB, 4 x BDP)."
                + " iperf3 counts TCP payload: 1448 of every 1514 bytes tbf counts, so 95.6 %% of the rate is"
                + " full.%n# ping prints times from 10 ms on to 0.1 ms and from 100 ms on to 1 ms; its mean has"
                + " microseconds. Path: the round trip of the kernel and the forwarder alone, measured at start and"
                + " taken off the configured delays.%n%n", queueMs);
        System.out.println("| RTT target ms | rate Mbit/s | ping median ms | ping p99 ms | ping mean ms | mean error"
                + " | iperf3 Mbit/s | of rate | TCP buffer max | forwarder CPU s | drops q/buf/write | path ms |");
        System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|");
        for (double rtt : rtts) {
            double[][] matrix = {{0, rtt}, {rtt, 0}};
            try (DelayLine line = DelayLine.start(List.of("a", "b"), matrix, 0)) {
                for (double rate : rates) {
                    long bdp = (long) (rate * 1e6 / 8 * rtt / 1e3);
                    long max = Math.max(4L << 20, 4 * bdp);
                    for (int node = 0; node < 2; node++) {
                        line.shape(node, rate, queueMs);
                        line.sysctl(node, "net.ipv4.tcp_rmem", "4096 131072 " + max);
                        line.sysctl(node, "net.ipv4.tcp_wmem", "4096 16384 " + max);
                    }
                    double cpu = line.forwarderCpuSeconds();
                    DelayLine.Pings ping = line.ping(0, 1, pings, 0.01);
                    double mbit = line.iperf3Mbit(0, 1, seconds, omit);
                    cpu = line.forwarderCpuSeconds() - cpu;
                    System.out.printf(Locale.ROOT, "| %.0f | %.0f | %.3f | %.3f | %.3f | %+.1f %% | %.1f | %.1f %%"
                            + " | %.1f MiB | %.2f | %s | %.3f |%n", rtt, rate, ping.median(), ping.percentile(0.99),
                            ping.meanMs(), (ping.meanMs() - rtt) / rtt * 100, mbit, mbit / rate * 100,
                            max / 1048576.0, cpu, drops(line.forwarderStats()), line.pathMs());
                }
            }
        }
    }

    /**
     * {@code n} namespaces (a server, a client and relays) with the RTTs of every (303 / n)-th location of the
     * PlanetLab matrix (the mean of both directions), every pair pinged: how long the line takes to start and how
     * close each pair's mean RTT comes to its target.
     */
    private static void matrix(int n) throws Exception {
        LatencyMatrix planetLab = LatencyMatrix.load(PLANETLAB);
        int[] locations = new int[n];
        for (int i = 0; i < n; i++) {
            locations[i] = i * (planetLab.size() / n);
        }
        LatencyMatrix sub = planetLab.subset(locations);
        double[][] rtt = new double[n][n];
        List<String> names = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            names.add(i == 0 ? "srv" : i == 1 ? "cli" : "r" + (i - 1));
            for (int j = 0; j < n; j++) {
                rtt[i][j] = i == j ? 0 : (sub.rtt(i, j) + sub.rtt(j, i)) / 2;
            }
        }
        long started = System.nanoTime();
        try (DelayLine line = DelayLine.start(names, rtt, 0)) {
            double startS = (System.nanoTime() - started) / 1e9;
            double cpu = line.forwarderCpuSeconds();
            List<Double> meanErrors = new ArrayList<>();
            int within = 0;
            double worstMedian = 0;
            double worstMean = 0;
            for (int i = 0; i < n; i++) {
                for (int j = i + 1; j < n; j++) {
                    DelayLine.Pings pings = line.ping(i, j, 5, 0.02);
                    double median = (pings.median() - rtt[i][j]) / rtt[i][j] * 100;
                    double mean = (pings.meanMs() - rtt[i][j]) / rtt[i][j] * 100;
                    within += Math.abs(median) <= 5 ? 1 : 0;
                    worstMedian = Math.abs(median) > Math.abs(worstMedian) ? median : worstMedian;
                    worstMean = Math.abs(mean) > Math.abs(worstMean) ? mean : worstMean;
                    meanErrors.add(Math.abs(mean));
                }
            }
            Collections.sort(meanErrors);
            double[] all = Arrays.stream(rtt).flatMapToDouble(Arrays::stream).filter(v -> v > 0).sorted().toArray();
            System.out.printf(Locale.ROOT, "%n# %d namespaces on one delay line, RTTs from %s (locations %s), every"
                    + " pair: 5 pings at 20 ms intervals; error of their median (ping's rounding: 0.1 ms under 100 ms,"
                    + " 1 ms above) and of ping's mean (microseconds) against the target%n%n", n,
                    PLANETLAB.getFileName(), Arrays.toString(locations));
            System.out.println("| namespaces | pairs | RTTs ms | start s | pairs within 5 % (median) | worst median"
                    + " error | median of mean errors | worst mean error | forwarder CPU s | path ms |");
            System.out.println("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|");
            System.out.printf(Locale.ROOT, "| %d | %d | %.0f–%.0f | %.1f | %d | %+.2f %% | %.2f %% | %+.2f %% | %.2f"
                    + " | %.3f |%n", n, meanErrors.size(), all[0], all[all.length - 1], startS, within, worstMedian,
                    meanErrors.get(meanErrors.size() / 2), worstMean, line.forwarderCpuSeconds() - cpu,
                    line.pathMs());
        }
    }
    /** The forwarder's drop counters summed over its ports, as "queue/nobuf/write". */
    private static String drops(String stats) {
        long[] sum = new long[3];
        String[] names = {"drop-queue", "drop-nobuf", "drop-write"};
        for (String line : stats.split("\n")) {
            List<String> words = Arrays.asList(line.trim().split(" "));
            for (int k = 0; k < names.length; k++) {
                int at = words.indexOf(names[k]);
                if (at >= 0) {
                    sum[k] += Long.parseLong(words.get(at + 1));
                }
            }
        }
        return sum[0] + "/" + sum[1] + "/" + sum[2];
    }

    private static double[] numbers(String list) {
        List<Double> values = new ArrayList<>();
        for (String s : list.split(",")) {
            values.add(Double.parseDouble(s.trim()));
        }
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    private static String usage(String problem) {
        System.err.println("bench-delayline: " + problem + "\nusage: bin/bench-delayline [--rtts 1,10,50,100,200]"
                + " [--rates 50,100,200] [--seconds 10] [--omit 3] [--pings 200] [--queue-ms 50] [--matrix-nodes 14]"
                + " [--only table|matrix]");
        System.exit(2);
        return problem;
    }
}

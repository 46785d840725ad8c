package io.fsp.it.testbed;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@code bin/bench-delayline}: the delay line's validation table. For each round-trip time, two namespaces joined by
 * the delay line; for each rate, tbf on both ends, ping RTT (median, p99) and one iperf3 TCP stream with the
 * namespaces' TCP buffers sized for the bandwidth-delay product, and the forwarder's CPU time over the row.
 *
 * <p>Arguments: {@code [--rtts 1,10,50,100,200] [--rates 50,100,200] [--seconds 10] [--omit 3] [--pings 200]
 * [--queue-ms 50]}.
 */
public final class DelayLineBench {
    private DelayLineBench() {
    }

    public static void main(String[] args) throws Exception {
        double[] rtts = {1, 10, 50, 100, 200};
        double[] rates = {50, 100, 200};
        int seconds = 10;
        int omit = 3;
        int pings = 200;
        double queueMs = 50;
        for (int i = 0; i < args.length; i += 2) {
            String value = i + 1 < args.length ? args[i + 1] : usage("missing value for " + args[i]);
            switch (args[i]) {
                case "--rtts" -> rtts = numbers(value);
                case "--rates" -> rates = numbers(value);
                case "--seconds" -> seconds = Integer.parseInt(value);
                case "--omit" -> omit = Integer.parseInt(value);
                case "--pings" -> pings = Integer.parseInt(value);
                case "--queue-ms" -> queueMs = Double.parseDouble(value);
                default -> usage("unknown option " + args[i]);
            }
        }
        String missing = DelayLine.missingRequirement();
        if (missing != null) {
            System.err.println("bench-delayline: " + missing);
            System.exit(2);
        }
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
                + " [--rates 50,100,200] [--seconds 10] [--omit 3] [--pings 200] [--queue-ms 50]");
        System.exit(2);
        return problem;
    }
}

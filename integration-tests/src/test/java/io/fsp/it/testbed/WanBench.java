package io.fsp.it.testbed;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code bin/bench-wan}: FSP on a long fat link. For each round-trip time and each set of TCP buffer limits, a
 * server, a client and three relays on the delay line, every pair that far apart, every namespace sending at the
 * rate; then per variant one transfer of the same file, timed as a user sees it (the whole client process):
 * {@code fsp get --include-direct} from a server without relays (one data connection), {@code fsp get} striped via
 * the three relays, curl over plain FTP from the same server, and one iperf3 stream as the link's reference.
 *
 * <p>Arguments: {@code [--rtts 50,100,200] [--rate 200] [--size-mib 256] [--queue-ms 50]
 * [--limits debian,raised] [--variants iperf3,direct,striped,curl] [--repeat 1] [--home DIR]
 * [--client-option OPTION]... [--summaries]}. {@code --home} runs the launchers of another built tree (a copy of one, to compare
 * builds); {@code --client-option} adds an option to every {@code fsp get}; {@code --summaries} prints each
 * {@code fsp get}'s JSON summary after its row (and its milestones, with FSP_JAVA_OPTS set to
 * {@code -Dorg.slf4j.simpleLogger.log.io.fsp.client.collect.Collector=debug}).
 */
public final class WanBench {
    private WanBench() {
    }

    public static void main(String[] args) throws Exception {
        double[] rtts = {50, 100, 200};
        double rate = 200;
        long sizeMiB = 256;
        double queueMs = 50;
        List<String> limits = List.of("debian", "raised");
        List<String> variants = List.of("iperf3", "direct", "striped", "curl");
        int repeat = 1;
        Path home = Path.of("..").toAbsolutePath().normalize();
        List<String> clientOptions = new ArrayList<>();
        boolean summaries = false;
        for (int i = 0; i < args.length; i += 2) {
            if (args[i].equals("--summaries")) {
                summaries = true;
                i--;
                continue;
            }
            String value = i + 1 < args.length ? args[i + 1] : usage("missing value for " + args[i]);
            switch (args[i]) {
                case "--rtts" -> rtts = List.of(value.split(",")).stream().mapToDouble(Double::parseDouble)
                        .toArray();
                case "--rate" -> rate = Double.parseDouble(value);
                case "--size-mib" -> sizeMiB = Long.parseLong(value);
                case "--queue-ms" -> queueMs = Double.parseDouble(value);
                case "--limits" -> limits = List.of(value.split(","));
                case "--variants" -> variants = List.of(value.split(","));
                case "--repeat" -> repeat = Integer.parseInt(value);
                case "--home" -> home = Path.of(value).toAbsolutePath();
                case "--client-option" -> clientOptions.add(value);
                default -> usage("unknown option " + args[i]);
            }
        }
        String missing = DelayLine.missingRequirement();
        if (missing != null) {
            System.err.println("bench-wan: " + missing);
            System.exit(2);
        }
        long bytes = sizeMiB << 20;
        System.out.printf(Locale.ROOT, "# FSP on a long fat link: server, client and 3 relays on the delay line, every"
                + " pair the RTT apart, tbf at %.0f Mbit/s (queue %.0f ms) on every namespace; %d MiB, launchers of"
                + " %s%s.%n# wall: the whole client process (JVM start, login, exit); goodput = file bytes / wall;"
                + " %% of link against the tbf rate (TCP payload can be 95.6 %% of it); CPU: the client process,"
                + " and the server's JVM during the transfer. iperf3: one stream, 10 s after 2 s omitted.%n"
                + "# TCP limits per namespace: debian = tcp_rmem 4096 131072 6291456, tcp_wmem 4096 16384 4194304"
                + " (Debian's defaults); raised = both max(4 MiB, 4 x BDP). Congestion control: %s;"
                + " net.core.rmem_max (host-wide) %s.%n%n", rate, queueMs, sizeMiB, home,
                clientOptions.isEmpty() ? "" : ", fsp get " + String.join(" ", clientOptions),
                Testbed.output(List.of("sysctl", "-n", "net.ipv4.tcp_congestion_control"), 10).strip(),
                Testbed.output(List.of("sysctl", "-n", "net.core.rmem_max"), 10).strip());
        System.out.println("| limits | variant | RTT ms | wall s | goodput Mbit/s | of link | fsp's own s | client CPU s"
                + " | server CPU s | identical |");
        System.out.println("|---|---|---:|---:|---:|---:|---:|---:|---:|---|");
        for (String profile : limits) {
            for (double rtt : rtts) {
                long bdp = (long) (rate * 1e6 / 8 * rtt / 1e3);
                long max = Math.max(4L << 20, 4 * bdp);
                String rmem = profile.equals("debian") ? "4096 131072 6291456" : "4096 131072 " + max;
                String wmem = profile.equals("debian") ? "4096 16384 4194304" : "4096 16384 " + max;
                Path work = Files.createTempDirectory("bench-wan");
                try (WanRig rig = WanRig.start(WanRig.Programs.launchers(home), work, 3, rtt, rate, queueMs, rmem, wmem)) {
                    Path source = rig.dataFile("big.bin", bytes);
                    Process direct = rig.startServer(2121, false);
                    Process striped = rig.startServer(2122, true);
                    Path dest = work.resolve("received.bin");
                    for (int r = 0; r < repeat; r++) {
                        for (String variant : variants) {
                            if (variant.equals("iperf3")) {
                                double mbit = rig.line.iperf3Mbit(WanRig.SERVER, WanRig.CLIENT, 10, 2);
                                System.out.printf(Locale.ROOT, "| %s | iperf3 | %.0f | – | %.1f | %.1f %% | – | – | – |"
                                        + " – |%n", profile, rtt, mbit, mbit / rate * 100);
                                continue;
                            }
                            Process server = variant.equals("striped") ? striped : direct;
                            double serverCpu = WanRig.cpuSeconds(server);
                            List<String> options = new ArrayList<>(clientOptions);
                            if (variant.equals("direct")) {
                                options.add("--include-direct");
                            }
                            WanRig.Run run = switch (variant) {
                                case "direct" -> rig.get(2121, "big.bin", dest, options.toArray(String[]::new));
                                case "striped" -> rig.get(2122, "big.bin", dest, options.toArray(String[]::new));
                                case "curl" -> rig.curl(2121, "big.bin", dest);
                                default -> throw new IllegalArgumentException("variant: " + variant
                                        + " (expected: iperf3, direct, striped, curl)");
                            };
                            serverCpu = WanRig.cpuSeconds(server) - serverCpu;
                            boolean identical = Files.mismatch(source, dest) == -1;
                            double mbit = bytes * 8 / run.wallSeconds() / 1e6;
                            System.out.printf(Locale.ROOT, "| %s | %s | %.0f | %.2f | %.1f | %.1f %% | %s | %.2f |"
                                    + " %.2f | %s |%n", profile, variant, rtt, run.wallSeconds(), mbit,
                                    mbit / rate * 100, run.ownSeconds() < 0 ? "–"
                                    : String.format(Locale.ROOT, "%.2f", run.ownSeconds()), run.cpuSeconds(),
                                    serverCpu, identical ? "yes" : "NO");
                            if (summaries && run.ownSeconds() >= 0) {
                                // the JSON summary, and the client's milestones where its debug log is on
                                run.output().lines().filter(l -> l.contains("ms after JVM start")
                                        || l.startsWith("{")).forEach(l -> System.out.println("<!-- " + l + " -->"));
                            }
                            Files.deleteIfExists(dest);
                        }
                    }
                } finally {
                    try (var files = Files.walk(work)) {
                        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                    }
                }
            }
        }
    }

    private static String usage(String problem) {
        System.err.println("bench-wan: " + problem + "\nusage: bin/bench-wan [--rtts 50,100,200] [--rate 200]"
                + " [--size-mib 256] [--queue-ms 50] [--limits debian,raised] [--variants iperf3,direct,striped,curl]"
                + " [--repeat 1] [--home DIR] [--client-option OPTION]... [--summaries]");
        System.exit(2);
        return problem;
    }
}

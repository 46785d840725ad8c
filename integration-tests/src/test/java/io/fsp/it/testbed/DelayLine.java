package io.fsp.it.testbed;

import io.fsp.bench.CpuTime;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Network namespaces joined by the delay line ({@code integration-tests/testbed/delayline}): one forwarder process
 * switches frames between one TAP device per namespace ({@code eth0}, address {@link #address}) and delays each by
 * half the round-trip time given for its pair of namespaces, less half the path's own round-trip time (measured by
 * ping when the line starts, {@link #pathMs}). Rates are set per namespace with {@link #shape}.
 *
 * <p>Namespace names start with a random prefix ({@code dl<8 hex>-}), so two delay lines never collide. {@link #close}
 * stops the forwarder (which removes the TAP devices), kills what runs in the namespaces and deletes them; a failed
 * {@link #start} does the same for what it had made, and a shutdown hook covers a JVM that exits before close. Needs
 * root, {@code /dev/net/tun}, ip, tc and gcc (see {@link #missingRequirement}).
 */
public final class DelayLine implements AutoCloseable {
    /** Where the forwarder's source and build script live, from the integration-tests module directory. */
    static final Path SOURCE_DIR = Path.of("testbed", "delayline");
    private static final String DEVICE = "eth0";
    private static final int MAX_NODES = 120;
    private static final double CALIBRATION_RTT_MS = 1;

    private final String prefix;
    private final List<String> names;
    private final List<String> namespaces = new ArrayList<>();
    private final Path work;
    private final Thread shutdownHook = new Thread(this::teardown, "delayline-teardown");
    private Process forwarder;
    private String finalStats = "";
    private double pathMs;
    private boolean closed;

    private DelayLine(List<String> names, Path work) {
        this.names = List.copyOf(names);
        this.work = work;
        this.prefix = "dl" + HexFormat.of().formatHex(randomBytes(4)) + "-";
    }

    /**
     * Creates one namespace per name and joins them: frames from node i to node j wait {@code rttMs[i][j] / 2} ms
     * (the matrix must be symmetric), plus jitter uniform in ±{@code jitterMs / 2} that never reorders a pair's
     * frames.
     */
    public static DelayLine start(List<String> names, double[][] rttMs, double jitterMs) throws IOException,
            InterruptedException {
        if (names.size() < 2 || names.size() > MAX_NODES) {
            throw new IllegalArgumentException("nodes: " + names.size() + " (expected: 2.." + MAX_NODES + ")");
        }
        if (rttMs.length != names.size()) {
            throw new IllegalArgumentException("matrix rows: " + rttMs.length + " (expected: " + names.size() + ")");
        }
        for (int i = 0; i < names.size(); i++) {
            if (!names.get(i).matches("[a-z0-9]{1,12}")) {
                throw new IllegalArgumentException("node name: '" + names.get(i) + "' (expected: [a-z0-9]{1,12})");
            }
            for (int j = 0; j < names.size(); j++) {
                if (rttMs[i].length != names.size() || rttMs[i][j] != rttMs[j][i] || !(rttMs[i][j] >= 0)) {
                    throw new IllegalArgumentException("rtt[" + i + "][" + j + "]: expected a symmetric matrix >= 0");
                }
            }
        }
        Path binary = build();
        DelayLine line = new DelayLine(names, Files.createTempDirectory("delayline"));
        Runtime.getRuntime().addShutdownHook(line.shutdownHook);
        try {
            line.setUp(binary, rttMs, jitterMs);
            return line;
        } catch (IOException | InterruptedException | RuntimeException e) {
            line.close();
            throw e;
        }
    }

    /** Null when this machine can run a delay line, else why not (for a test's skip message). */
    public static String missingRequirement() {
        if (!Testbed.isRoot()) {
            return "needs root (network namespaces, TAP devices, tc)";
        }
        if (!Files.exists(Path.of("/dev/net/tun"))) {
            return "no TAP support (/dev/net/tun missing)";
        }
        for (String tool : List.of("ip", "tc", "gcc", "ping", "iperf3")) {
            if (!Testbed.runs("sh", "-c", "command -v " + tool)) {
                return tool + " not installed (bin/install-test-tools installs it)";
            }
        }
        return null;
    }

    /** Compiles the forwarder if its source changed; returns the binary. */
    static Path build() throws IOException, InterruptedException {
        Path script = SOURCE_DIR.resolve("build.sh").toAbsolutePath();
        String out = Testbed.output(List.of(script.toString()), 60);
        return Path.of(out.strip().lines().reduce((a, b) -> b).orElseThrow());
    }

    private void setUp(Path binary, double[][] rttMs, double jitterMs) throws IOException, InterruptedException {
        StringBuilder hosts = new StringBuilder("127.0.0.1 localhost\n");
        for (int i = 0; i < names.size(); i++) {
            hosts.append(address(i)).append(' ').append(names.get(i)).append('\n');
        }
        String hostname = Testbed.output(List.of("hostname"), 10).strip(); // one UTS name for every namespace
        for (int i = 0; i < names.size(); i++) {
            String ns = prefix + names.get(i);
            Testbed.run("ip", "netns", "add", ns);
            namespaces.add(ns);
            Testbed.run("ip", "-n", ns, "link", "set", "lo", "up");
            Path etc = Path.of("/etc/netns", ns);
            Files.createDirectories(etc);
            // GridFTP resolves its own name: in each namespace the machine's name is that namespace's address
            Files.writeString(etc.resolve("hosts"), hosts + address(i) + " " + hostname + "\n");
            Files.writeString(etc.resolve("resolv.conf"), "nameserver 127.0.0.1\n");
        }
        double[][] calibration = new double[names.size()][names.size()];
        for (double[] row : calibration) {
            Arrays.fill(row, CALIBRATION_RTT_MS);
        }
        writeConfig(calibration, 0, 0);
        // -e: the forwarder exits when our end of its standard input closes, even if this JVM is killed;
        // -R: real-time scheduling, so builds running beside it on this machine do not make frames late
        forwarder = new ProcessBuilder(binary.toString(), "-e", "-R", work.resolve("delayline.conf").toString())
                .redirectError(work.resolve("delayline.log").toFile()).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(forwarder.getInputStream(),
                StandardCharsets.UTF_8));
        if (!"ready".equals(out.readLine())) {
            forwarder.waitFor(5, TimeUnit.SECONDS);
            throw new IOException("delayline did not start: " + Files.readString(work.resolve("delayline.log")));
        }
        for (int i = 0; i < names.size(); i++) {
            Testbed.run("ip", "-n", namespace(i), "addr", "add", address(i) + "/24", "dev", DEVICE);
            Testbed.run("ip", "-n", namespace(i), "link", "set", DEVICE, "up");
        }
        knowNeighbours();
        // The path has latency of its own (two trips through the kernel and the forwarder's wake-ups): measure it
        // at a short delay and take it off every pair's delay, so that round trips take what the matrix says.
        pathMs = Math.max(0, ping(0, 1, 50, 0.01).median() - CALIBRATION_RTT_MS);
        writeConfig(rttMs, jitterMs, pathMs);
        String log = signal("HUP");
        if (!log.contains("delays read again")) {
            throw new IOException("delayline did not read its delays again: " + log);
        }
    }

    /**
     * Gives every namespace a permanent neighbour entry for every other one, as a host on the Internet has its
     * next hop resolved: otherwise the first packet to each peer waits for an ARP exchange, one more round trip at
     * that pair's delay, and a first RTT measurement (an overlay's probe, say) comes out twice too long.
     */
    private void knowNeighbours() throws IOException, InterruptedException {
        List<String> macs = new ArrayList<>();
        Pattern ether = Pattern.compile("link/ether ([0-9a-f:]{17})");
        for (int i = 0; i < names.size(); i++) {
            Matcher m = ether.matcher(Testbed.output(List.of("ip", "-n", namespace(i), "-o", "link", "show", DEVICE),
                    10));
            if (!m.find()) {
                throw new IOException("no MAC address on " + DEVICE + " in " + namespace(i));
            }
            macs.add(m.group(1));
        }
        for (int i = 0; i < names.size(); i++) {
            StringBuilder batch = new StringBuilder();
            for (int j = 0; j < names.size(); j++) {
                if (j != i) {
                    batch.append("neigh replace ").append(address(j)).append(" lladdr ").append(macs.get(j))
                            .append(" dev ").append(DEVICE).append(" nud permanent\n");
                }
            }
            Path file = work.resolve("neigh-" + i);
            Files.writeString(file, batch);
            Testbed.run("ip", "-n", namespace(i), "-batch", file.toString());
        }
    }

    private void writeConfig(double[][] rttMs, double jitterMs, double subtractMs) throws IOException {
        StringBuilder config = new StringBuilder();
        for (int i = 0; i < names.size(); i++) {
            config.append("port ").append(namespace(i)).append(' ').append(DEVICE).append('\n');
        }
        for (int i = 0; i < names.size(); i++) {
            for (int j = i + 1; j < names.size(); j++) {
                double rtt = Math.max(0, rttMs[i][j] - subtractMs);
                config.append(String.format(Locale.ROOT, "rtt %d %d %.4f %.4f%n", i, j, rtt, jitterMs));
            }
        }
        Path file = work.resolve("delayline.conf");
        Path next = work.resolve("delayline.conf.next");
        Files.writeString(next, config);
        Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Sends the forwarder a signal and returns what it wrote to its log in answer. */
    private String signal(String name) throws IOException, InterruptedException {
        Path log = work.resolve("delayline.log");
        long before = Files.size(log);
        Testbed.run("kill", "-" + name, Long.toString(forwarder.pid()));
        for (int i = 0; i < 200 && Files.size(log) == before; i++) {
            Thread.sleep(10);
        }
        Thread.sleep(20);
        String all = Files.readString(log);
        return all.substring((int) Math.min(before, all.length()));
    }

    /** The round-trip time of the path itself (kernel and forwarder), measured at start and taken off every pair. */
    public double pathMs() {
        return pathMs;
    }

    public int size() {
        return names.size();
    }

    public String name(int node) {
        return names.get(node);
    }

    public String namespace(int node) {
        return prefix + names.get(node);
    }

    /** The node's address on the delay line (each namespace's /etc/netns hosts file maps node names to these). */
    public String address(int node) {
        return "10.78.0." + (node + 1);
    }

    /**
     * Limits what {@code node} sends to {@code mbit} (tbf on its TAP device, Ethernet headers counted), with a queue
     * of {@code queueMs} at that rate; frames beyond it are dropped. Replaces an earlier rate.
     */
    public void shape(int node, double mbit, double queueMs) throws IOException, InterruptedException {
        long burst = Math.max(70_000, (long) (mbit * 1e6 / 8 / 250)); // one 64 KiB packet, or 4 ms at the rate
        Testbed.run("tc", "-n", namespace(node), "qdisc", "replace", "dev", DEVICE, "root", "tbf",
                "rate", fmt(mbit) + "mbit", "burst", Long.toString(burst), "latency", fmt(queueMs) + "ms");
    }

    /** Sets a sysctl in the node's namespace (per-namespace ones only, such as net.ipv4.tcp_rmem). */
    public void sysctl(int node, String key, String value) throws IOException, InterruptedException {
        Testbed.run("ip", "netns", "exec", namespace(node), "sysctl", "-q", "-w", key + "=" + value);
    }

    /** A command run inside the node's namespace. */
    public ProcessBuilder command(int node, String... command) {
        List<String> all = new ArrayList<>(List.of("ip", "netns", "exec", namespace(node)));
        all.addAll(List.of(command));
        return new ProcessBuilder(all);
    }

    /**
     * Ping round-trip times in ms, sorted; {@code meanMs} from ping's summary, which has microseconds throughout;
     * {@code inOrder}: every reply arrived after the replies to earlier requests.
     */
    public record Pings(double[] sortedMs, double meanMs, boolean inOrder) {
        public double median() {
            return sortedMs[sortedMs.length / 2];
        }

        /** The value {@code p} (0..1) of the samples are at or below. */
        public double percentile(double p) {
            return sortedMs[Math.max(0, Math.min(sortedMs.length - 1, (int) Math.ceil(sortedMs.length * p) - 1))];
        }
    }

    /**
     * {@code count} pings from one node to another, {@code intervalS} apart (no ARP exchange: every namespace knows
     * its neighbours from the start). Ping prints times of 10 ms and more to 0.1 ms and of 100 ms and more to 1 ms.
     */
    public Pings ping(int from, int to, int count, double intervalS) throws IOException, InterruptedException {
        String out = Testbed.output(command(from, "ping", "-n", "-c", Integer.toString(count), "-i", fmt(intervalS),
                "-W", "5", address(to)).command(), 30 + (long) (count * intervalS));
        Matcher m = Pattern.compile("time=([0-9.]+) ms").matcher(out);
        List<Double> times = new ArrayList<>();
        while (m.find()) {
            times.add(Double.parseDouble(m.group(1)));
        }
        Matcher seq = Pattern.compile("icmp_seq=([0-9]+)").matcher(out);
        boolean inOrder = true;
        int last = 0;
        while (seq.find()) {
            int n = Integer.parseInt(seq.group(1));
            inOrder &= n > last;
            last = n;
        }
        Matcher summary = Pattern.compile("= [0-9.]+/([0-9.]+)/").matcher(out);
        if (times.size() < count * 9 / 10 || !summary.find()) {
            throw new IOException("ping " + name(from) + " -> " + name(to) + ": " + times.size() + " of " + count
                    + " answered:\n" + out);
        }
        return new Pings(times.stream().mapToDouble(Double::doubleValue).sorted().toArray(),
                Double.parseDouble(summary.group(1)), inOrder);
    }

    /**
     * One TCP stream of iperf3 from one node to another for {@code seconds} after {@code omit} seconds of ramp-up;
     * returns what the receiver got, in Mbit/s of payload.
     */
    public double iperf3Mbit(int from, int to, int seconds, int omit) throws IOException, InterruptedException {
        Process server = command(to, "iperf3", "-s", "-1", "-B", address(to), "--forceflush")
                .redirectErrorStream(true).start();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(server.getInputStream(),
                    StandardCharsets.UTF_8));
            String line;
            while ((line = lines.readLine()) != null && !line.contains("listening")) {
                // banner lines
            }
            String json = Testbed.output(command(from, "iperf3", "-c", address(to), "-t", Integer.toString(seconds),
                    "-O", Integer.toString(omit), "-J").command(), seconds + omit + 30);
            Matcher m = Pattern.compile("\"sum_received\"\\s*:\\s*\\{[^}]*?\"bits_per_second\"\\s*:\\s*([0-9.eE+]+)")
                    .matcher(json);
            if (!m.find()) {
                throw new IOException("iperf3 " + name(from) + " -> " + name(to) + " gave no result:\n" + json);
            }
            return Double.parseDouble(m.group(1)) / 1e6;
        } finally {
            server.destroyForcibly();
            server.waitFor(5, TimeUnit.SECONDS);
        }
    }

    /** CPU time (user + system) the forwarder has used so far, in seconds. */
    public double forwarderCpuSeconds() {
        return CpuTime.ofProcess(forwarder.pid());
    }

    /** The forwarder's counters (frames per port, drops, timer lateness); after close, its final ones. */
    public String forwarderStats() throws IOException, InterruptedException {
        if (closed) {
            return finalStats;
        }
        return signal("USR1");
    }

    @Override
    public void close() {
        teardown();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run: nothing to remove
        }
    }

    private synchronized void teardown() {
        if (closed) {
            return;
        }
        closed = true;
        boolean interrupted = false; // tear everything down first, then let the caller see the interrupt
        if (forwarder != null) {
            try (OutputStream in = forwarder.getOutputStream()) {
                in.flush(); // closing its standard input makes it print its counters and exit
            } catch (IOException ignored) {
                // already gone
            }
            try {
                if (!forwarder.waitFor(5, TimeUnit.SECONDS)) {
                    forwarder.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
                finalStats = Files.readString(work.resolve("delayline.log"));
            } catch (IOException | InterruptedException e) {
                forwarder.destroyForcibly();
                interrupted = e instanceof InterruptedException;
            }
        }
        for (String ns : namespaces) {
            try {
                // only processes started through this delay line run in its namespaces
                for (String pid : Testbed.output(List.of("ip", "netns", "pids", ns), 10).split("\\s+")) {
                    if (!pid.isBlank()) {
                        Testbed.runs("kill", "-9", pid);
                    }
                }
            } catch (IOException | InterruptedException e) {
                interrupted |= e instanceof InterruptedException; // deleting the namespace still detaches it
            }
            Testbed.runs("ip", "netns", "del", ns);
            Testbed.deleteTree(Path.of("/etc/netns", ns));
        }
        Testbed.deleteTree(work);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The namespaces of every delay line that exist now (to check that none was left behind). */
    public static List<String> existingNamespaces() throws IOException, InterruptedException {
        return Arrays.stream(Testbed.output(List.of("ip", "netns", "list"), 10).split("\n"))
                .map(l -> l.split(" ")[0]).filter(n -> n.matches("dl[0-9a-f]{8}-.*")).toList();
    }

    /** The prefix of this delay line's namespace names. */
    public String prefix() {
        return prefix;
    }

    private static byte[] randomBytes(int n) {
        byte[] bytes = new byte[n];
        new SecureRandom().nextBytes(bytes);
        return bytes;
    }

    private static String fmt(double value) {
        return String.format(Locale.ROOT, "%.3f", value).replaceAll("\\.?0+$", "");
    }
}

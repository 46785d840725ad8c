package io.fsp.it.testbed;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Internet-like testbed: a {@link WanRig} whose server, client and relays sit at {@link InternetLocations} of a
 * latency matrix (every pair that matrix's RTT apart on the delay line), the relays joined in a Meridian overlay
 * over UDP, and a server that picks relays by multi-constraint query (MCQ) through it. Nothing is faked: the
 * overlay's nodes measure RTTs with their own probes through the delay line, and {@link #pingRtts} measures them
 * again with ping.
 */
final class InternetTestbed implements AutoCloseable {
    /** The server's log line naming a selection's relays (io.fsp.server.fsp.FretCommand). */
    private static final Pattern CHOICE = Pattern.compile(
            "relays for near-sender=([0-9.]+) near-client=([0-9.]+): \\[([^\\]]*)\\] \\(([0-9]+) from the overlay\\)(.*)");

    final WanRig rig;
    final InternetLocations at;
    private final String classPath;

    private InternetTestbed(WanRig rig, InternetLocations at, String classPath) {
        this.rig = rig;
        this.at = at;
        this.classPath = classPath;
    }

    /**
     * Builds the namespaces at the locations, shapes them, starts the relays in the overlay.
     *
     * @param classPath a class path with this class's module and fsp-common, for {@link #awaitOverlay}
     */
    static InternetTestbed start(WanRig.Programs programs, String classPath, Path work, InternetLocations at,
                                 double mbit, double queueMs, String tcpRmem, String tcpWmem)
            throws IOException, InterruptedException {
        return new InternetTestbed(WanRig.start(programs, work, at.rttMs(), mbit, queueMs, tcpRmem, tcpWmem, true), at,
                classPath);
    }

    /**
     * How far gossip got: seconds waited, how many other relays each relay's rings hold (-1: no answer), and the RTTs
     * the relays measured to their ring members ({@code [from][to]}, NaN where not a member).
     */
    record Overlay(double seconds, int[] known, boolean complete, double[][] measuredMs) {
        int least() {
            return Arrays.stream(known).min().orElse(0);
        }
    }

    /**
     * Waits, up to {@code seconds}, until every relay's rings hold every other relay, asking each node over UDP
     * from the server's namespace.
     */
    Overlay awaitOverlay(long seconds) throws IOException, InterruptedException {
        long started = System.nanoTime();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-cp", classPath, OverlayWait.class.getName(),
                rig.line.address(WanRig.SERVER), Long.toString(seconds)));
        for (int r = 0; r < rig.relays(); r++) {
            command.add(rig.meridianAddress(r));
        }
        Process p = rig.line.command(WanRig.SERVER, command.toArray(String[]::new)).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = p.waitFor();
        int[] known = new int[rig.relays()];
        Matcher m = Pattern.compile("(?m)^([0-9.]+):[0-9]+ (-?[0-9]+)$").matcher(out);
        int i = 0;
        while (m.find() && i < known.length) {
            known[i++] = Integer.parseInt(m.group(2));
        }
        if (i != known.length) {
            throw new IOException("overlay wait printed " + i + " of " + known.length + " nodes:\n" + out);
        }
        double[][] measured = new double[known.length][known.length];
        for (double[] row : measured) {
            Arrays.fill(row, Double.NaN);
        }
        Matcher ring = Pattern.compile("(?m)^ring ([0-9.]+) ([0-9.]+) ([0-9.]+)$").matcher(out);
        while (ring.find()) {
            measured[relayAt(ring.group(1))][relayAt(ring.group(2))] = Double.parseDouble(ring.group(3));
        }
        return new Overlay((System.nanoTime() - started) / 1e9, known, exit == 0, measured);
    }

    /**
     * Starts a server on {@code port} that selects relays through relay 0's Meridian node and trusts every relay's
     * fingerprint when the overlay names it; it has no static relay, so every relay it uses came from the overlay.
     */
    Process startSelectingServer(int port) throws IOException, InterruptedException {
        List<String> extra = new ArrayList<>(List.of("--meridian-entry", rig.meridianAddress(0)));
        for (int r = 0; r < rig.relays(); r++) {
            extra.addAll(List.of("--trust-relay", rig.relayFingerprint(r)));
        }
        return rig.startServer(port, List.of(), extra.toArray(String[]::new));
    }

    /**
     * Median ping RTTs in ms from every relay to the server ({@code [r][0]}) and to the client ({@code [r][1]}),
     * {@code count} pings each, all pairs at once.
     */
    double[][] pingRtts(int count) throws IOException, InterruptedException {
        int relays = rig.relays();
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(8, 2 * relays));
        try {
            List<Future<Double>> medians = new ArrayList<>();
            for (int r = 0; r < relays; r++) {
                for (int end : new int[] {WanRig.SERVER, WanRig.CLIENT}) {
                    int node = WanRig.FIRST_RELAY + r;
                    medians.add(pool.submit(() -> rig.line.ping(node, end, count, 0.2).median()));
                }
            }
            double[][] out = new double[relays][2];
            for (int i = 0; i < medians.size(); i++) {
                try {
                    out[i / 2][i % 2] = medians.get(i).get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IOException("ping: " + e.getCause().getMessage(), e.getCause());
                }
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Median ping RTT in ms between the server and the client. */
    double pingServerClient(int count) throws IOException, InterruptedException {
        return rig.line.ping(WanRig.CLIENT, WanRig.SERVER, count, 0.2).median();
    }

    /**
     * A selection as the server logged it: the bounds it asked, the relays (0-based) it chose, how many came from
     * the overlay, and its note (why fewer, if so).
     */
    record Choice(double nearSenderMs, double nearClientMs, List<Integer> relays, int fromOverlay, String note) {
        /** Whether every chosen relay is within both bounds by the given RTTs ({@link #pingRtts}). */
        boolean satisfied(double[][] rtts) {
            return relays.stream().allMatch(r -> rtts[r][0] <= nearSenderMs && rtts[r][1] <= nearClientMs);
        }
    }

    /** The selections logged in {@code serverLog} (the part of a server's log since some point), in order. */
    List<Choice> choices(String serverLog) {
        List<Choice> out = new ArrayList<>();
        Matcher m = CHOICE.matcher(serverLog);
        while (m.find()) {
            List<Integer> relays = new ArrayList<>();
            for (String spec : m.group(3).split(",\\s*")) {
                if (!spec.isBlank()) {
                    relays.add(relayAt(spec.substring(0, spec.indexOf(':')).strip()));
                }
            }
            out.add(new Choice(Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2)), List.copyOf(relays),
                    Integer.parseInt(m.group(4)), m.group(5).replaceFirst("^; ", "").strip()));
        }
        return out;
    }

    private int relayAt(String ip) {
        for (int r = 0; r < rig.relays(); r++) {
            if (rig.line.address(WanRig.FIRST_RELAY + r).equals(ip)) {
                return r;
            }
        }
        throw new IllegalArgumentException("the server chose " + ip + ", which is no relay of this testbed");
    }

    /** The relay's name on the delay line ({@code r1}, ...). */
    String name(int relay) {
        return rig.line.name(WanRig.FIRST_RELAY + relay);
    }

    @Override
    public void close() {
        rig.close();
    }
}

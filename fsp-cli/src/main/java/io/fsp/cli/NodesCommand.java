package io.fsp.cli;

import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.net.MeridianService;
import io.fsp.meridian.wire.RingEntry;
import io.fsp.net.HostPort;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code fsp nodes HOST:PORT}: what a Meridian entry node knows — its rings and the RTTs it measured. */
@Command(name = "nodes", mixinStandardHelpOptions = true,
        description = "Show the ring members of a Meridian node and the RTTs it measured to them.")
public final class NodesCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "HOST:PORT", description = "UDP address of a Meridian node (e.g. a relay's --meridian port).")
    String entry;

    @Option(names = "--timeout-ms", defaultValue = "3000", description = "How long to wait for the answer (default: ${DEFAULT-VALUE}).")
    long timeoutMs;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        InetSocketAddress node;
        try {
            node = parse(entry);
        } catch (IllegalArgumentException e) {
            err.println("fsp nodes: " + e.getMessage());
            return ExitCodes.USAGE;
        }
        InetAddress local = node.getAddress().isLoopbackAddress() ? node.getAddress() : null;
        MeridianConfig config = MeridianConfig.builder().queryTimeout(Duration.ofMillis(Math.max(1, timeoutMs))).build();
        try (MeridianService client = MeridianService.client(new InetSocketAddress(local, 0), config)) {
            List<RingEntry> entries = client.rings(node).get(timeoutMs + 1000, TimeUnit.MILLISECONDS);
            out.printf(Locale.ROOT, "%s knows %d nodes%n", HostPort.format(node), entries.size());
            out.printf(Locale.ROOT, "%-4s %-16s %-9s %-40s %10s%n", "ring", "range (ms)", "role", "node", "rtt (ms)");
            for (RingEntry e : entries) {
                out.printf(Locale.ROOT, "%-4d %-16s %-9s %-40s %10.3f%n", e.ring(), range(config, e.ring()),
                        e.primary() ? "primary" : "secondary", HostPort.format(e.peer()),
                        e.rttMs());
            }
            out.flush();
            return 0;
        } catch (ExecutionException | TimeoutException e) {
            err.println("fsp nodes: no answer from " + HostPort.format(node) + " within " + timeoutMs + " ms");
            return 1;
        }
    }

    private static String range(MeridianConfig c, int ring) {
        double hi = c.ringUpperMs(ring);
        return "[" + ms(c.ringLowerMs(ring)) + ", " + (Double.isInfinite(hi) ? "inf" : ms(hi)) + ")";
    }

    private static String ms(double v) {
        return String.format(Locale.ROOT, "%.3f", v).replaceAll("\\.?0+$", "");
    }

    static InetSocketAddress parse(String hostPort) {
        InetSocketAddress a = HostPort.parse(hostPort).requirePeerPort().toSocketAddress();
        if (a.isUnresolved()) {
            throw new IllegalArgumentException(hostPort + ": unknown host " + a.getHostString());
        }
        return a;
    }
}

package io.fsp.it.testbed;

import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.net.MeridianService;
import io.fsp.meridian.wire.RingEntry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Run inside a namespace of the delay line: asks every given Meridian node for its rings (RINGS_REQUEST over UDP, as
 * {@code fsp nodes} does) until each knows every other one or the time is up; prints one line per node,
 * {@code ADDRESS KNOWN}, then one per ring member, {@code ring ADDRESS MEMBER RTT_MS} (the RTT the node measured),
 * and exits 0 if all know all, else 1.
 *
 * <p>Arguments: {@code BIND_IP SECONDS HOST:PORT...}.
 */
public final class OverlayWait {
    private OverlayWait() {
    }

    public static void main(String[] args) throws Exception {
        InetAddress bind = InetAddress.getByName(args[0]);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(args[1]));
        List<InetSocketAddress> nodes = java.util.Arrays.stream(args, 2, args.length).map(a -> {
            int colon = a.lastIndexOf(':');
            return new InetSocketAddress(a.substring(0, colon), Integer.parseInt(a.substring(colon + 1)));
        }).toList();
        MeridianConfig config = MeridianConfig.builder().queryTimeout(Duration.ofSeconds(3)).build();
        int[] known = new int[nodes.size()];
        List<List<RingEntry>> rings = new java.util.ArrayList<>(java.util.Collections.nCopies(nodes.size(), List.of()));
        try (MeridianService asker = MeridianService.client(new InetSocketAddress(bind, 0), config)) {
            while (true) {
                List<CompletableFuture<List<RingEntry>>> asks = nodes.stream().map(asker::rings).toList();
                boolean all = true;
                for (int i = 0; i < nodes.size(); i++) {
                    try {
                        rings.set(i, asks.get(i).get(4, TimeUnit.SECONDS));
                        known[i] = rings.get(i).size();
                    } catch (Exception e) {
                        known[i] = -1; // no answer (yet)
                    }
                    all &= known[i] >= nodes.size() - 1;
                }
                if (all || System.nanoTime() > deadline) {
                    for (int i = 0; i < nodes.size(); i++) {
                        System.out.println(nodes.get(i).getAddress().getHostAddress() + ":" + nodes.get(i).getPort()
                                + " " + known[i]);
                    }
                    for (int i = 0; i < nodes.size(); i++) {
                        for (RingEntry e : rings.get(i)) {
                            System.out.println("ring " + nodes.get(i).getAddress().getHostAddress() + " "
                                    + e.peer().getAddress().getHostAddress() + " " + e.rttMs());
                        }
                    }
                    System.exit(all ? 0 : 1);
                }
                Thread.sleep(500);
            }
        }
    }
}

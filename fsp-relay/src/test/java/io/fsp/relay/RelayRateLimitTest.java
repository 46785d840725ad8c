package io.fsp.relay;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.relaylink.RelayConnection;
import io.fsp.relay.net.RateLimits;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A capped relay moves N MiB in about N/rate seconds, with real TLS connections on loopback. The bounds are generous
 * (the machine is shared): at least 70 % of N/rate, which an uncapped relay beats many times over, and at most a few
 * times N/rate.
 */
@Timeout(180)
class RelayRateLimitTest {
    private static final int MIB = 1 << 20;

    @TempDir
    Path dir;

    /** One transfer fetched over four connections still gets its cap, not four times it. */
    @Test
    void perTransferCapHoldsOverSeveralConnections() throws Exception {
        long rate = 2L * MIB;
        int blocks = 6;
        try (RelayHarness h = new RelayHarness(dir, 64L * MIB, 64L * MIB, c -> c.withRates(new RateLimits(0, rate)));
             RelayConnection server = h.server()) {
            RelayHarness.Opened t = h.open(server);
            double pushed = seconds(() -> push(server, t, blocks));
            assertAbout("push of " + blocks + " MiB", pushed, (double) blocks * MIB / rate);

            List<RelayConnection> clients = new ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    RelayConnection c = h.client();
                    c.authorize(t.token()).get(10, TimeUnit.SECONDS);
                    clients.add(c);
                }
                double fetched = seconds(() -> {
                    List<CompletableFuture<ByteBuf>> gets = new ArrayList<>();
                    for (int seq = 0; seq < blocks; seq++) {
                        gets.add(clients.get(seq % clients.size()).getBlock(t.id(), seq));
                    }
                    for (CompletableFuture<ByteBuf> g : gets) {
                        g.get(60, TimeUnit.SECONDS).release();
                    }
                });
                // The first block goes at once: the others wait for the cap.
                assertAbout("fetch of " + blocks + " MiB over 4 connections", fetched, (double) (blocks - 1) * MIB / rate);
            } finally {
                clients.forEach(RelayConnection::close);
            }
        }
    }

    /** Two transfers share the total cap, in both directions. */
    @Test
    void totalCapIsSharedByAllTransfers() throws Exception {
        long rate = 4L * MIB;
        int blocks = 5;
        try (RelayHarness h = new RelayHarness(dir, 64L * MIB, 64L * MIB, c -> c.withRates(new RateLimits(rate, 0)));
             RelayConnection serverA = h.server(); RelayConnection serverB = h.server();
             RelayConnection clientA = h.client(); RelayConnection clientB = h.client()) {
            RelayHarness.Opened a = h.open(serverA);
            RelayHarness.Opened b = h.open(serverB);
            double pushed = seconds(() -> {
                CompletableFuture<Void> pa = CompletableFuture.runAsync(() -> push(serverA, a, blocks));
                CompletableFuture<Void> pb = CompletableFuture.runAsync(() -> push(serverB, b, blocks));
                pa.get(120, TimeUnit.SECONDS);
                pb.get(120, TimeUnit.SECONDS);
            });
            assertAbout("push of 2 x " + blocks + " MiB", pushed, 2.0 * blocks * MIB / rate);

            clientA.authorize(a.token()).get(10, TimeUnit.SECONDS);
            clientB.authorize(b.token()).get(10, TimeUnit.SECONDS);
            double fetched = seconds(() -> {
                List<CompletableFuture<ByteBuf>> gets = new ArrayList<>();
                for (int seq = 0; seq < blocks; seq++) {
                    gets.add(clientA.getBlock(a.id(), seq));
                    gets.add(clientB.getBlock(b.id(), seq));
                }
                for (CompletableFuture<ByteBuf> g : gets) {
                    g.get(60, TimeUnit.SECONDS).release();
                }
            });
            assertAbout("fetch of 2 x " + blocks + " MiB", fetched, 2.0 * blocks * MIB / rate);
        }
    }

    private static void push(RelayConnection server, RelayHarness.Opened t, int blocks) {
        List<CompletableFuture<Void>> puts = new ArrayList<>();
        for (int seq = 0; seq < blocks; seq++) {
            puts.add(server.putBlock(t.id(), seq, Unpooled.wrappedBuffer(new byte[MIB])));
        }
        CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).join();
    }

    private static void assertAbout(String what, double seconds, double expected) {
        System.out.printf("%s: %.2f s (cap: %.2f s)%n", what, seconds, expected);
        assertTrue(seconds >= 0.7 * expected, what + " took " + seconds + " s, under 70 % of the cap's " + expected + " s");
        assertTrue(seconds <= 4 * expected + 10, what + " took " + seconds + " s, far over the cap's " + expected + " s");
    }

    private interface Work {
        void run() throws Exception;
    }

    private static double seconds(Work work) throws Exception {
        long start = System.nanoTime();
        work.run();
        return (System.nanoTime() - start) / 1e9;
    }
}

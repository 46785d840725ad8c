package io.fsp.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fsp.relaylink.RelayConnection;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Throughput of one relay on loopback: a server pushes blocks while a client fetches and confirms each as
 * soon as it is stored. Not part of {@code mvn verify}; run with {@code bin/bench-relay} (sizes via
 * {@code -Dbench.mib=…}, {@code -Dbench.block=…}, {@code -Dbench.runs=…}).
 */
class RelayThroughputBench {
    @TempDir
    Path store;

    @Test
    void pushAndPullThroughOneRelay() throws Exception {
        long mib = Long.getLong("bench.mib", 512);
        int blockSize = Integer.getInteger("bench.block", 1 << 20);
        int runs = Integer.getInteger("bench.runs", 3);
        try (RelayHarness warmUp = new RelayHarness(store, 512L << 20, 256L << 20)) {
            oneRun(warmUp, Math.min(256, mib) * (1 << 20) / blockSize, blockSize); // JIT, TLS, pools
        }
        for (String mode : System.getProperty("bench.modes", "memory,disk").split(",")) {
            List<Double> rates = new ArrayList<>();
            List<Double> perCpu = new ArrayList<>();
            for (int run = 0; run < runs; run++) {
                long memory = mode.equals("memory") ? 256L << 20 : 0;
                try (RelayHarness h = new RelayHarness(store, 512L << 20, memory)) {
                    long cpu0 = cpuNanos();
                    long blocks = mib * (1 << 20) / blockSize;
                    rates.add(oneRun(h, blocks, blockSize));
                    perCpu.add(blocks * blockSize / 1e6 / ((cpuNanos() - cpu0) / 1e9));
                }
            }
            rates.sort(Double::compare);
            perCpu.sort(Double::compare);
            System.out.printf("bench-relay: %s store, %d MiB in %d-byte blocks: wall-clock runs %s MB/s, median %.0f MB/s;"
                            + " per CPU-second (server + relay + client, all TLS) median %.0f MB%n",
                    mode, mib, blockSize, rates.stream().map(r -> String.format("%.0f", r)).toList(),
                    rates.get(rates.size() / 2), perCpu.get(perCpu.size() / 2));
        }
    }

    /** CPU time of this whole JVM: pusher, relay and collector share it. */
    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static double oneRun(RelayHarness h, long blocks, int blockSize) throws Exception {
        ByteBuf pattern = PooledByteBufAllocator.DEFAULT.directBuffer(blockSize);
        pattern.writeZero(blockSize);
        try (RelayConnection server = h.server(); RelayConnection client = h.client()) {
            RelayHarness.Opened t = h.open(server);
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            LinkedBlockingQueue<Long> stored = new LinkedBlockingQueue<>();
            AtomicLong received = new AtomicLong();
            long start = System.nanoTime();
            CompletableFuture<Void> collector = CompletableFuture.runAsync(() -> {
                try {
                    List<CompletableFuture<Void>> inFlight = new ArrayList<>();
                    for (long n = 0; n < blocks; n++) {
                        long seq = stored.take();
                        inFlight.add(client.getBlock(t.id(), seq).thenCompose(b -> {
                            received.addAndGet(b.readableBytes());
                            b.release();
                            return client.confirm(t.id(), List.of(seq)).thenApply(x -> null);
                        }));
                        if (inFlight.size() >= 8) {
                            inFlight.remove(0).join();
                        }
                    }
                    inFlight.forEach(CompletableFuture::join);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            for (long seq = 0; seq < blocks; seq++) {
                server.whenWritable().get(60, TimeUnit.SECONDS);
                long s = seq;
                server.putBlock(t.id(), seq, pattern.retainedDuplicate()).thenRun(() -> stored.add(s));
            }
            collector.get(300, TimeUnit.SECONDS);
            double seconds = (System.nanoTime() - start) / 1e9;
            assertEquals(blocks * blockSize, received.get());
            return received.get() / 1e6 / seconds;
        } finally {
            pattern.release();
        }
    }
}

package io.fsp.client.cli;

import io.fsp.client.collect.Collector;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * One self-overwriting status line while a get, a collect or an evacuation runs: bytes, rate, ETA and the rate of
 * each source (relay). Only started when standard output is a terminal, so scripts and {@code --json} output stay
 * clean.
 */
final class ProgressView implements AutoCloseable {
    private final LongSupplier done;
    private final LongSupplier total;
    private final Supplier<Map<String, Long>> bySource;
    private final PrintWriter out;
    private final Thread thread;
    private final long start = System.nanoTime();
    private volatile boolean running = true;

    /** Bytes verified on disk. */
    ProgressView(Collector collector, PrintWriter out) {
        this(collector::bytesDone, collector::totalBytes, collector::bytesBySource, out);
    }

    /** {@code done} of {@code total} bytes, and by source. */
    ProgressView(LongSupplier done, LongSupplier total, Supplier<Map<String, Long>> bySource, PrintWriter out) {
        this.done = done;
        this.total = total;
        this.bySource = bySource;
        this.out = out;
        this.thread = new Thread(this::loop, "fsp-progress");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void loop() {
        while (running) {
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                return;
            }
            print();
        }
    }

    private void print() {
        double s = (System.nanoTime() - start) / 1e9;
        long done = this.done.getAsLong();
        long total = this.total.getAsLong();
        double rate = s > 0 ? done / s : 0;
        String eta = rate > 0 && total > done ? String.format(Locale.ROOT, "%.0fs", (total - done) / rate) : "-";
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "\r%,d / %,d bytes  %.1f MB/s  ETA %s ", done, total,
                rate / 1e6, eta));
        for (Map.Entry<String, Long> e : bySource.get().entrySet()) {
            sb.append(String.format(Locale.ROOT, " %s %.1f MB/s", e.getKey(), s > 0 ? e.getValue() / 1e6 / s : 0));
        }
        out.print(sb);
        out.flush();
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        out.print("\r");
        out.println();
        out.flush();
    }
}

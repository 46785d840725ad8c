package io.fsp.cli;

import io.fsp.client.collect.Collector;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Progress while a get, a collect or an evacuation runs. On a terminal, one self-overwriting status line (bytes,
 * rate, ETA and the rate of each source, a relay), only when standard output is a terminal, so scripts and
 * {@code --json} output stay clean. For scripts ({@code fsp get --progress-json}), one JSON object per line each
 * second: {@code {"event":"progress","seconds":S,"bytes_done":N,"bytes_total":N,"bytes_per_s":R}}, where the rate is
 * that of the last second and {@code bytes_total} is 0 until the server has announced the transfer.
 */
final class ProgressView implements AutoCloseable {
    private final LongSupplier done;
    private final LongSupplier total;
    private final Supplier<Map<String, Long>> bySource;
    private final PrintWriter out;
    private final boolean json;
    private final Thread thread;
    private final long start = System.nanoTime();
    private volatile boolean running = true;
    private long lastNanos = start;
    private long lastDone;

    /** Bytes verified on disk, on the terminal's status line. */
    ProgressView(Collector collector, PrintWriter out) {
        this(collector, out, false);
    }

    /** Bytes verified on disk; {@code json}: as JSON lines. */
    ProgressView(Collector collector, PrintWriter out, boolean json) {
        this(collector::bytesDone, collector::totalBytes, collector::bytesBySource, out, json);
    }

    /** {@code done} of {@code total} bytes, and by source, on the terminal's status line. */
    ProgressView(LongSupplier done, LongSupplier total, Supplier<Map<String, Long>> bySource, PrintWriter out) {
        this(done, total, bySource, out, false);
    }

    private ProgressView(LongSupplier done, LongSupplier total, Supplier<Map<String, Long>> bySource, PrintWriter out,
                         boolean json) {
        this.done = done;
        this.total = total;
        this.bySource = bySource;
        this.out = out;
        this.json = json;
        this.thread = new Thread(this::loop, "fsp-progress");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void loop() {
        while (running) {
            try {
                Thread.sleep(json ? 1000 : 500);
            } catch (InterruptedException e) {
                return;
            }
            if (json) {
                printJson();
            } else {
                print();
            }
        }
    }

    private void printJson() {
        long now = System.nanoTime();
        long doneNow = done.getAsLong();
        double interval = (now - lastNanos) / 1e9;
        double rate = interval > 0 ? (doneNow - lastDone) / interval : 0;
        lastNanos = now;
        lastDone = doneNow;
        out.println(String.format(Locale.ROOT, "{\"event\":\"progress\",\"seconds\":%.3f,"
                + "\"bytes_done\":%d,\"bytes_total\":%d,\"bytes_per_s\":%.0f}",
                (now - start) / 1e9, doneNow, total.getAsLong(), rate));
        out.flush();
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
        try {
            thread.join(2000); // no progress line after the summary
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!json) {
            out.print("\r");
            out.println();
            out.flush();
        }
    }
}

package io.fsp.client.collect;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counts a transfer's summary reports: blocks and bytes by source, failures by cause, blocks the server did
 * not send (FHAV), and how long damaged blocks took to recover. Safe from any thread.
 */
final class TransferStatistics {
    private final Map<String, LongAdder> blocksBySource = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> bytesBySource = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> retries = new ConcurrentHashMap<>();
    /** When each block was first found damaged, and how long its recovery took by where the good copy came from. */
    private final Map<Long, Long> damagedAt = new ConcurrentHashMap<>();
    private final Map<String, List<Double>> recoveryMillis = new ConcurrentHashMap<>();
    private final AtomicLong notSent = new AtomicLong();
    private final AtomicLong bytesDone = new AtomicLong();
    private final LongAdder blocksDone = new LongAdder();
    private volatile boolean allVerified = true;

    /** A failure, as {@code "source: cause"}; each is a reason a block had to be fetched again. */
    void failed(String sourceAndCause) {
        retries.computeIfAbsent(sourceAndCause, k -> new LongAdder()).increment();
    }

    /** The block's bytes were found not to be its own; its recovery time runs from the first time. */
    void damaged(long seq) {
        damagedAt.putIfAbsent(seq, System.nanoTime());
    }

    /** The server did not send a block, because this client holds it from an earlier run. */
    void notSent() {
        notSent.incrementAndGet();
    }

    /** A block was written and flushed but not hashed (mode off): the transfer is not verified. */
    void writtenUnverified() {
        allVerified = false;
    }

    /** A block is on disk, from {@code source}. */
    void done(long seq, int length, String source) {
        blocksDone.increment();
        bytesDone.addAndGet(length);
        blocksBySource.computeIfAbsent(source, k -> new LongAdder()).increment();
        bytesBySource.computeIfAbsent(source, k -> new LongAdder()).add(length);
        Long damaged = damagedAt.get(seq);
        if (damaged != null) {
            recoveryMillis.computeIfAbsent(source.startsWith("relay:") ? "relay" : source,
                    k -> Collections.synchronizedList(new ArrayList<>())).add((System.nanoTime() - damaged) / 1e6);
        }
    }

    long blocksDone() {
        return blocksDone.sum();
    }

    /** Blocks found damaged whose good copy is now on disk. */
    long blocksRecovered() {
        long n = 0;
        for (List<Double> list : recoveryMillis.values()) {
            n += list.size();
        }
        return n;
    }

    long bytesDone() {
        return bytesDone.get();
    }

    /** Whether every block done so far was hashed and matched (none only written). */
    boolean allVerified() {
        return allVerified;
    }

    long notSentCount() {
        return notSent.get();
    }

    Map<String, Long> blocksBySource() {
        return snapshot(blocksBySource);
    }

    Map<String, Long> bytesBySource() {
        return snapshot(bytesBySource);
    }

    Map<String, Long> retries() {
        return snapshot(retries);
    }

    Map<String, CollectSummary.Recovery> recoveries() {
        Map<String, CollectSummary.Recovery> out = new TreeMap<>();
        recoveryMillis.forEach((source, list) -> {
            double[] ms;
            synchronized (list) {
                ms = list.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            }
            out.put(source, new CollectSummary.Recovery(ms.length, ms[ms.length / 2], ms[ms.length - 1]));
        });
        return out;
    }

    private static Map<String, Long> snapshot(Map<String, LongAdder> m) {
        Map<String, Long> out = new TreeMap<>();
        m.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    /** A failure's cause, countable: without block ids and numbers that differ per block. */
    static String describe(Throwable e) {
        if (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        String name = e.getClass().getSimpleName().replace("Exception", "");
        String msg = e.getMessage() == null ? "" : e.getMessage();
        msg = msg.replaceAll("[0-9a-f]{16}/\\d+", "block").replaceAll("(?<![.:\\d])\\b\\d{2,}\\b(?![.:]\\d)", "N"); // addresses stay
        return name + (msg.isEmpty() ? "" : ": " + (msg.length() > 120 ? msg.substring(0, 120) : msg));
    }
}

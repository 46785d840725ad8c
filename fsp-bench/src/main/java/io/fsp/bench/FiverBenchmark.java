package io.fsp.bench;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Hasher;
import io.fsp.client.verify.BlockRef;
import io.fsp.client.verify.BlockVerdict;
import io.fsp.client.verify.FiverVerifier;
import io.fsp.client.verify.VerificationEvent;
import io.fsp.client.verify.VerificationMode;
import io.fsp.client.verify.VerifierConfig;

import io.fsp.client.write.PositionalWriter;
import io.fsp.config.ByteSize;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code bin/bench-fiver}: the cost of FIVER verification as paper 000 Equation 1 defines it,
 * (t − max(t_transfer, t_checksum)) / max(t_transfer, t_checksum), for FIVER and for sequential
 * verification (write, then read the file back and hash it).
 *
 * <p>"Transfer" here is the receiving side of a transfer: plaintext blocks in memory (a pool of direct
 * buffers, as after decryption) written at their offsets and flushed before they are reported, which is
 * the verifier in mode off. Each round runs every measurement once, in a rotating order; the table shows
 * medians.
 */
@Command(name = "fiver", mixinStandardHelpOptions = true,
        description = "Measures FIVER overhead (paper 000, Equation 1) against write-only, hash-only and sequential verification.")
public final class FiverBenchmark implements Callable<Integer> {
    @Option(names = "--size", defaultValue = "2g", description = "File size, e.g. 512m, 2g (default: ${DEFAULT-VALUE}).")
    String size;

    @Option(names = "--block", defaultValue = "4m", description = "Block size (default: ${DEFAULT-VALUE}; paper 002 §5.4 finds 4 MiB best).")
    String block;

    @Option(names = "--runs", defaultValue = "5", description = "Rounds; medians are reported (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--dir", defaultValue = "target/bench-fiver", description = "Directory for the test file (default: ${DEFAULT-VALUE}).")
    Path dir;

    @Option(names = "--algorithm", defaultValue = "sha256", description = "Block digest: crc32c, adler32, crc32, md5, sha1, sha256, blake3 (default: ${DEFAULT-VALUE}).")
    String algorithm;

    @Option(names = "--queue-depth", defaultValue = "16", description = "Blocks in flight (default: ${DEFAULT-VALUE}).")
    int queueDepth;

    @Option(names = "--hash-threads", defaultValue = "1", description = "Hashing threads (default: ${DEFAULT-VALUE}).")
    int hashThreads;

    @Option(names = "--riva", description = "Also measure mode riva (re-read with O_DIRECT).")
    boolean riva;

    @Option(names = "--direct-writes", description = "Write blocks with O_DIRECT from aligned buffers (no page-cache copy).")
    boolean directWrites;

    @Option(names = "--only", split = ",", description = "Run only these measures (transfer, checksum, fiver, sequential, riva), e.g. for profiling.")
    List<String> only;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private final Map<VerificationMode, Long> flushCounts = new java.util.EnumMap<>(VerificationMode.class);
    private long fileSize;
    private int blockSize;
    private ByteBuffer[] pool;
    private byte[][] poolDigests;
    private ChecksumAlgorithm hash;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        fileSize = parseSize(size);
        blockSize = (int) parseSize(block);
        hash = ChecksumAlgorithm.fromLabel(algorithm);
        pool = new ByteBuffer[queueDepth + 2];
        poolDigests = new byte[pool.length][];
        Random random = new Random(42);
        for (int i = 0; i < pool.length; i++) {
            byte[] content = new byte[blockSize];
            random.nextBytes(content);
            // Page-aligned, as O_DIRECT needs (and as a pooled allocator can be told to align).
            pool[i] = ByteBuffer.allocateDirect(blockSize + 4096).alignedSlice(4096).limit(blockSize).slice().put(content).flip();
            Hasher h = hash.newHasher();
            h.update(pool[i]);
            poolDigests[i] = h.finish().value();
        }
        Files.createDirectories(dir);
        out.printf(Locale.ROOT, "bench-fiver: %s file, %s blocks, %s, queue depth %d, hash threads %d, %s writes, %d rounds, in %s (%d cores)%n",
                human(fileSize), human(blockSize), algorithm, queueDepth, hashThreads, directWrites ? "O_DIRECT" : "buffered", runs, dir.toAbsolutePath(),
                Runtime.getRuntime().availableProcessors());
        out.flush();

        Map<String, Measure> measures = new LinkedHashMap<>();
        measures.put("t_transfer", this::transferOnly);
        measures.put("t_checksum", this::checksumOnly);
        measures.put("t_fiver", () -> verified(VerificationMode.FIVER));
        measures.put("t_sequential", this::sequential);
        if (riva) {
            measures.put("t_riva", () -> verified(VerificationMode.RIVA));
        }
        if (only != null) {
            measures.keySet().retainAll(only.stream().map(o -> "t_" + o.trim()).toList());
            if (measures.isEmpty()) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--only: " + only + " (expected: transfer, checksum, fiver, sequential, riva)");
            }
        }
        List<String> names = new ArrayList<>(measures.keySet());

        // Warm-up: JIT and file system, not counted.
        long full = fileSize;
        fileSize = Math.min(fileSize, 256L << 20);
        for (String name : names) {
            settle();
            measures.get(name).run();
        }
        fileSize = full;

        Map<String, double[]> seconds = new LinkedHashMap<>();
        Map<String, double[]> cpu = new LinkedHashMap<>();
        names.forEach(n -> seconds.put(n, new double[runs]));
        names.forEach(n -> cpu.put(n, new double[runs]));
        for (int round = 0; round < runs; round++) {
            for (int k = 0; k < names.size(); k++) {
                String name = names.get((round + k) % names.size());
                settle();
                long cpuBefore = processCpuNanos();
                seconds.get(name)[round] = measures.get(name).run();
                cpu.get(name)[round] = (processCpuNanos() - cpuBefore) / 1e9;
            }
            out.printf(Locale.ROOT, "round %d:", round + 1);
            for (String name : names) {
                out.printf(Locale.ROOT, " %s=%.3fs", name, seconds.get(name)[round]);
            }
            out.println();
            out.flush();
        }
        Files.deleteIfExists(target());

        out.println();
        out.printf(Locale.ROOT, "%-14s %10s %10s %8s %10s   %s%n", "measure", "median s", "MB/s", "min s", "CPU s", "all rounds (s)");
        Map<String, Double> median = new LinkedHashMap<>();
        for (String name : names) {
            double[] s = seconds.get(name).clone();
            Arrays.sort(s);
            double m = median(s);
            median.put(name, m);
            StringBuilder all = new StringBuilder();
            for (double x : seconds.get(name)) {
                all.append(String.format(Locale.ROOT, "%.3f ", x));
            }
            out.printf(Locale.ROOT, "%-14s %10.3f %10.1f %8.3f %10.3f   %s%n", name, m, fileSize / 1e6 / m, s[0],
                    median(cpu.get(name).clone()), all.toString().trim());
        }
        if (!median.containsKey("t_transfer") || !median.containsKey("t_checksum")) {
            out.flush();
            return 0;
        }
        double base = Math.max(median.get("t_transfer"), median.get("t_checksum"));
        out.println();
        out.printf(Locale.ROOT, "Equation 1 overhead, (t - max(t_transfer, t_checksum)) / max(...), max = %.3f s:%n", base);
        for (String name : names) {
            if (!name.equals("t_transfer") && !name.equals("t_checksum")) {
                out.printf(Locale.ROOT, "  %-12s %+7.1f %%%n", name.substring(2), 100 * (median.get(name) - base) / base);
            }
        }
        out.printf(Locale.ROOT, "fdatasync calls per run (most seen): %s, for %d blocks%n", flushCounts, blocks());
        stageCpu.forEach((mode, stages) -> {
            out.printf(Locale.ROOT, "thread CPU s, last %s run (main includes earlier runs):", mode.cliName());
            stages.forEach((stage, sec) -> out.printf(Locale.ROOT, " %s=%.3f", stage, sec));
            out.println();
        });
        out.flush();
        return 0;
    }

    /** Thread CPU seconds by verifier stage (thread name prefix), most recent run per mode. */
    private final Map<VerificationMode, Map<String, Double>> stageCpu = new java.util.EnumMap<>(VerificationMode.class);

    private void recordStageCpu(VerificationMode mode) {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        Map<String, Double> byStage = new java.util.TreeMap<>();
        for (java.lang.management.ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (info == null) {
                continue;
            }
            String name = info.getThreadName();
            String stage = name.startsWith("fiver-") || name.startsWith("riva-") ? name.replaceAll("-\\d+$", "")
                    : name.equals("main") ? "main (producer)" : null;
            long ns = mx.getThreadCpuTime(info.getThreadId());
            if (stage != null && ns > 0) {
                byStage.merge(stage, ns / 1e9, Double::sum);
            }
        }
        stageCpu.put(mode, byStage);
    }

    private static double median(double[] values) {
        Arrays.sort(values);
        int n = values.length;
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }

    /** CPU time of this process, all threads: shows how much work each way does, apart from waiting. */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private interface Measure {
        double run() throws Exception;
    }

    /**
     * Starts every measurement from a quiet disk: the previous file is deleted and everything is
     * synced before the clock starts, so one measurement does not pay for the last one's write-back.
     */
    private void settle() throws IOException, InterruptedException {
        Files.deleteIfExists(target());
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
        new ProcessBuilder("sync").inheritIO().start().waitFor();
    }

    private Path target() {
        return dir.resolve("bench-fiver.bin");
    }

    private long blocks() {
        return (fileSize + blockSize - 1) / blockSize;
    }

    /** The verifier fed from the buffer pool, as a collector would feed it. */
    private double verified(VerificationMode mode) throws Exception {
        VerifierConfig config = VerifierConfig.defaults().withMode(mode).withAlgorithm(hash)
                .withQueueDepth(queueDepth).withHashThreads(hashThreads);
        BlockingQueue<Integer> free = new ArrayBlockingQueue<>(pool.length);
        for (int i = 0; i < pool.length; i++) {
            free.add(i);
        }
        long[] failed = {0};
        long[] flushes = {0};
        long start = System.nanoTime();
        try (PositionalWriter writer = new PositionalWriter(dir, directWrites)) {
            writer.prepareFile(target().getFileName().toString(), fileSize);
            try (FiverVerifier verifier = new FiverVerifier(writer, config, null, e -> {
                if (e instanceof VerificationEvent.Flushed) {
                    flushes[0]++;
                }
                if (e instanceof VerificationEvent.Verdict v && v.verdict().outcome() != BlockVerdict.Outcome.VERIFIED
                        && v.verdict().outcome() != BlockVerdict.Outcome.WRITTEN) {
                    failed[0]++;
                }
            })) {
                for (long b = 0; b < blocks(); b++) {
                    int i = free.take();
                    long offset = b * blockSize;
                    int len = (int) Math.min(blockSize, fileSize - offset);
                    ByteBuffer data = pool[i].duplicate().limit(len);
                    byte[] digest = len == blockSize ? poolDigests[i] : digestOf(data);
                    verifier.submit(new BlockRef(target().getFileName().toString(), offset, len), data, digest, () -> free.add(i));
                }
                verifier.drain();
                recordStageCpu(mode); // while the verifier's threads are alive
            }
        }
        double t = (System.nanoTime() - start) / 1e9;
        flushCounts.merge(mode, flushes[0], Math::max);
        if (failed[0] > 0 && mode != VerificationMode.RIVA) {
            throw new IllegalStateException(failed[0] + " blocks not verified in mode " + mode.cliName());
        }
        return t;
    }

    private double transferOnly() throws Exception {
        return verified(VerificationMode.OFF);
    }

    /** Hashing the same bytes in memory, with as many threads as the verifier hashes with. */
    private double checksumOnly() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(hashThreads);
        try {
            long start = System.nanoTime();
            List<Future<?>> parts = new ArrayList<>();
            for (int t = 0; t < hashThreads; t++) {
                int first = t;
                parts.add(threads.submit(() -> {
                    Hasher h = hash.newHasher();
                    for (long b = first; b < blocks(); b += hashThreads) {
                        int len = (int) Math.min(blockSize, fileSize - b * blockSize);
                        h.update(pool[(int) (b % pool.length)].duplicate().limit(len));
                        h.finish();
                    }
                    return null;
                }));
            }
            for (Future<?> f : parts) {
                f.get();
            }
            return (System.nanoTime() - start) / 1e9;
        } finally {
            threads.shutdown();
        }
    }

    /** Write (as in transfer only), then read the file back and hash every block. */
    private double sequential() throws Exception {
        long start = System.nanoTime();
        transferOnly();
        ExecutorService threads = Executors.newFixedThreadPool(hashThreads);
        try (FileChannel ch = FileChannel.open(target(), StandardOpenOption.READ)) {
            List<Future<?>> parts = new ArrayList<>();
            for (int t = 0; t < hashThreads; t++) {
                int first = t;
                parts.add(threads.submit(() -> {
                    Hasher h = hash.newHasher();
                    ByteBuffer buf = ByteBuffer.allocateDirect(blockSize);
                    for (long b = first; b < blocks(); b += hashThreads) {
                        buf.clear();
                        long offset = b * blockSize;
                        buf.limit((int) Math.min(blockSize, fileSize - offset));
                        while (buf.hasRemaining()) {
                            if (ch.read(buf, offset + buf.position()) < 0) {
                                throw new IOException("file ends early at block " + b);
                            }
                        }
                        h.update(buf.flip());
                        h.finish();
                    }
                    return null;
                }));
            }
            for (Future<?> f : parts) {
                f.get();
            }
        } finally {
            threads.shutdown();
        }
        return (System.nanoTime() - start) / 1e9;
    }

    private byte[] digestOf(ByteBuffer data) {
        Hasher h = hash.newHasher();
        h.update(data);
        return h.finish().value();
    }

    static long parseSize(String text) {
        try {
            long v = ByteSize.parse(text).bytes();
            if (v > 0) {
                return v;
            }
        } catch (IllegalArgumentException e) {
            // the message below names the option's form
        }
        throw new CommandLine.ParameterException(new CommandLine(new FiverBenchmark()),
                "size: " + text + " (expected: a positive number with an optional k, m or g suffix)");
    }

    private static String human(long bytes) {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + " GiB";
        }
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        return bytes + " B";
    }
}

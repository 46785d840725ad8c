package io.fsp.block.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs {@link BlockBenchmark} (JMH options may be passed as arguments) and prints MB/s per core per stage,
 * then each pipeline variant against its slowest stage and against the best its stages allow.
 */
public final class BlockBenchmarkTable {
    private static final double MB_PER_BLOCK = BlockBenchmark.BLOCK / 1e6;

    private BlockBenchmarkTable() {
    }

    public static void main(String[] args) throws Exception {
        CommandLineOptions cli = new CommandLineOptions(args);
        OptionsBuilder options = new OptionsBuilder();
        options.parent(cli);
        if (cli.getIncludes().isEmpty()) {
            options.include(BlockBenchmark.class.getName());
        }
        // Short defaults for a small shared machine; any JMH option on the command line wins.
        if (!cli.getForkCount().hasValue()) {
            options.forks(1);
        }
        if (!cli.getWarmupIterations().hasValue()) {
            options.warmupIterations(3);
        }
        if (!cli.getWarmupTime().hasValue()) {
            options.warmupTime(TimeValue.seconds(1));
        }
        if (!cli.getMeasurementIterations().hasValue()) {
            options.measurementIterations(3);
        }
        if (!cli.getMeasurementTime().hasValue()) {
            options.measurementTime(TimeValue.seconds(1));
        }
        Collection<RunResult> results = new Runner(options.build()).run();

        Map<String, Double> mbps = new LinkedHashMap<>();
        List<String[]> rows = new ArrayList<>();
        List<RunResult> pipelines = new ArrayList<>();
        for (RunResult r : results) {
            BenchmarkParams p = r.getParams();
            String method = method(r);
            String data = p.getParam("data");
            if (method.equals("zstdDecompress") && "random".equals(data)) {
                continue; // random blocks are never sent compressed
            }
            double wall = r.getPrimaryResult().getScore() * MB_PER_BLOCK;
            double v = perCpuSecond(r);
            String variant = variant(method, p);
            mbps.put(method + "|" + variant + "|" + data, v);
            rows.add(new String[] {method, variant, data, String.format("%,.0f", v), String.format("%,.0f", wall)});
            if (method.startsWith("pipeline")) {
                pipelines.add(r);
            }
        }
        System.out.println();
        System.out.println("4 MiB blocks in direct buffers, one thread (1 MB = 10^6 bytes). MB/s per core = MB per");
        System.out.println("second of CPU time of the threads doing the work; wall MB/s also counts waiting for a core.");
        System.out.println();
        System.out.printf("| %-14s | %-38s | %-6s | %13s | %9s |%n", "stage", "variant", "data", "MB/s per core", "wall MB/s");
        System.out.println("|----------------|----------------------------------------|--------|---------------|-----------|");
        for (String[] row : rows) {
            System.out.printf("| %-14s | %-38s | %-6s | %13s | %9s |%n", (Object[]) row);
        }
        summary(pipelines, mbps);
    }

    /** MB per CPU-second from the benchmark's Cpu counters; wall-clock MB/s if they are missing. */
    private static double perCpuSecond(RunResult r) {
        var cpu = r.getSecondaryResults().get("cpuNanos");
        var blocks = r.getSecondaryResults().get("blocks");
        if (cpu == null || blocks == null || cpu.getScore() <= 0) {
            return r.getPrimaryResult().getScore() * MB_PER_BLOCK;
        }
        return blocks.getScore() * MB_PER_BLOCK / (cpu.getScore() / 1e9);
    }

    private static String method(RunResult r) {
        return r.getParams().getBenchmark().replaceAll(".*\\.", "");
    }

    private static String variant(String method, BenchmarkParams p) {
        switch (method) {
            case "hash": return p.getParam("algorithm");
            case "zstdCompress": case "zstdDecompress": return "level " + p.getParam("level");
            case "gcmSeal": case "gcmOpen": return "AES-" + p.getParam("bits") + "-GCM " + p.getParam("provider");
            case "pipelineSeal": case "pipelineOpen":
                return "zstd " + p.getParam("zstd") + ", digest " + p.getParam("digest") + ", " + p.getParam("alloc") + " alloc";
            default: return "";
        }
    }

    /**
     * Each pipeline against its stages (SHA-256, zstd level 1, AES-128-GCM JDK, CRC32C). "Best" is what its
     * stages allow: one after another on one thread, 1 / (sum of 1/speed); with the digest beside, the
     * longer of the digest and the sum of the rest.
     */
    private static void summary(List<RunResult> pipelines, Map<String, Double> mbps) {
        System.out.println();
        System.out.println("Pipelines (SHA-256 digest, AES-128-GCM JDK, CRC32C, optional zstd level 1) against their stages:");
        System.out.println();
        System.out.println("All speeds in MB/s per core (CPU time), except the wall column.");
        System.out.println();
        System.out.printf("| %-4s | %-6s | %-4s | %-6s | %8s | %-22s | %9s | %6s | %9s | %6s |%n",
                "dir", "data", "zstd", "digest", "MB/s", "slowest stage", "% slowest", "best", "% of best", "wall");
        System.out.println("|------|--------|------|--------|----------|------------------------|-----------|--------|-----------|--------|");
        for (RunResult r : pipelines) {
            BenchmarkParams p = r.getParams();
            boolean seal = method(r).equals("pipelineSeal");
            String data = p.getParam("data");
            boolean zstd = !p.getParam("zstd").equals("off");
            boolean beside = p.getParam("digest").equals("beside");
            double pipe = perCpuSecond(r);
            double wall = r.getPrimaryResult().getScore() * MB_PER_BLOCK;

            Map<String, Double> serial = new LinkedHashMap<>();
            serial.put("CRC32C", mbps.get("hash|CRC32C|" + data));
            serial.put("AES-128-GCM", mbps.get((seal ? "gcmSeal" : "gcmOpen") + "|AES-128-GCM JDK|" + data));
            if (zstd && (seal || data.equals("text"))) {
                serial.put("zstd", mbps.get((seal ? "zstdCompress" : "zstdDecompress") + "|level 1|" + data));
            }
            Double sha = mbps.get("hash|SHA256|" + data);
            if (!beside) {
                serial.put("SHA-256", sha);
            }
            if (serial.containsValue(null) || sha == null) {
                continue;
            }
            Map<String, Double> all = new LinkedHashMap<>(serial);
            if (beside && seal) {
                all.put("SHA-256", sha);
            }
            String slowest = null;
            for (var e : all.entrySet()) {
                if (slowest == null || e.getValue() < all.get(slowest)) {
                    slowest = e.getKey();
                }
            }
            // Per core, a side digest still costs its CPU time: the best is the sum over all stages.
            double cpuTime = all.values().stream().mapToDouble(v -> 1 / v).sum();
            double best = 1 / cpuTime;
            System.out.printf("| %-4s | %-6s | %-4s | %-6s | %,8.0f | %-22s | %8.0f%% | %,6.0f | %8.0f%% | %,6.0f |%n",
                    seal ? "seal" : "open", data, p.getParam("zstd"), p.getParam("digest"), pipe,
                    slowest + " (" + String.format("%,.0f", all.get(slowest)) + ")",
                    100 * pipe / all.get(slowest), best, 100 * pipe / best, wall);
        }
        System.out.println();
        System.out.println("digest beside: the sender digests on a second thread (BlockPipeline.Builder.digestExecutor), which");
        System.out.println("shortens the wall time of a block when a core is free; the receiver leaves the digest to the client's");
        System.out.println("hashing stage beside the disk write (not timed here). best: 1 / (sum of 1/stage speed), what the");
        System.out.println("stages cost together per core; the gap to 100 % is the pipeline's own cost (allocation, cache).");
    }
}

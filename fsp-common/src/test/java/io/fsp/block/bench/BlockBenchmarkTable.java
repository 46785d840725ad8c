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
            double v = r.getPrimaryResult().getScore() * MB_PER_BLOCK;
            String variant = variant(method, p);
            mbps.put(method + "|" + variant + "|" + data, v);
            rows.add(new String[] {method, variant, data, String.format("%,.0f", v)});
            if (method.startsWith("pipeline")) {
                pipelines.add(r);
            }
        }
        System.out.println();
        System.out.println("MB/s per core, one thread, 4 MiB blocks in pooled direct buffers (1 MB = 10^6 bytes):");
        System.out.println();
        System.out.printf("| %-14s | %-38s | %-6s | %8s |%n", "stage", "variant", "data", "MB/s");
        System.out.println("|----------------|----------------------------------------|--------|----------|");
        for (String[] row : rows) {
            System.out.printf("| %-14s | %-38s | %-6s | %8s |%n", (Object[]) row);
        }
        summary(pipelines, mbps);
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
                return "zstd " + p.getParam("zstd") + ", digest " + p.getParam("digest") + ", chunk " + p.getParam("chunk");
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
        System.out.printf("| %-4s | %-6s | %-4s | %-6s | %-5s | %8s | %-22s | %9s | %6s | %9s |%n",
                "dir", "data", "zstd", "digest", "chunk", "MB/s", "slowest stage (MB/s)", "% slowest", "best", "% of best");
        System.out.println("|------|--------|------|--------|-------|----------|------------------------|-----------|--------|-----------|");
        for (RunResult r : pipelines) {
            BenchmarkParams p = r.getParams();
            boolean seal = method(r).equals("pipelineSeal");
            String data = p.getParam("data");
            boolean zstd = !p.getParam("zstd").equals("off");
            boolean beside = p.getParam("digest").equals("beside");
            double pipe = r.getPrimaryResult().getScore() * MB_PER_BLOCK;

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
            double serialTime = serial.values().stream().mapToDouble(v -> 1 / v).sum();
            double best = 1 / (beside && seal ? Math.max(serialTime, 1 / sha) : serialTime);
            System.out.printf("| %-4s | %-6s | %-4s | %-6s | %-5s | %,8.0f | %-22s | %8.0f%% | %,6.0f | %8.0f%% |%n",
                    seal ? "seal" : "open", data, p.getParam("zstd"), p.getParam("digest"), p.getParam("chunk"), pipe,
                    slowest + " (" + String.format("%,.0f", all.get(slowest)) + ")",
                    100 * pipe / all.get(slowest), best, 100 * pipe / best);
        }
        System.out.println();
        System.out.println("digest beside: the sender digests on a second thread (BlockPipeline.Builder.digestExecutor); the");
        System.out.println("receiver leaves the digest to the client's hashing stage beside the disk write (not timed here).");
        System.out.println("best: 1 / (sum of 1/stage speed) for stages one after another on one thread; with the sender's");
        System.out.println("digest beside, the longer of the digest and the other stages. The gap to 100 % is the");
        System.out.println("pipeline's own cost (allocation, a cold cache across stages).");
    }
}

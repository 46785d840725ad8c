package io.fsp.block.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs {@link BlockBenchmark} (JMH options may be passed as arguments) and prints MB/s per core per stage,
 * plus how the pipeline compares with its slowest stage and with the sum of its stages' times.
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
            options.warmupIterations(2);
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
        for (RunResult r : results) {
            String method = r.getParams().getBenchmark().replaceAll(".*\\.", "");
            String data = r.getParams().getParam("data");
            String variant = variant(method, r);
            if (method.equals("zstdDecompress") && "random".equals(data)) {
                continue; // random blocks are never sent compressed
            }
            double v = r.getPrimaryResult().getScore() * MB_PER_BLOCK;
            mbps.put(method + "|" + variant + "|" + data, v);
            rows.add(new String[] {method, variant, data == null ? "-" : data, String.format("%,.0f", v)});
        }
        System.out.println();
        System.out.println("MB/s per core, 4 MiB blocks (1 MB = 10^6 bytes), one JMH fork:");
        System.out.println();
        System.out.printf("| %-14s | %-22s | %-6s | %8s |%n", "stage", "variant", "data", "MB/s");
        System.out.println("|----------------|------------------------|--------|----------|");
        for (String[] row : rows) {
            System.out.printf("| %-14s | %-22s | %-6s | %8s |%n", (Object[]) row);
        }
        summary(mbps);
    }

    private static String variant(String method, RunResult r) {
        var p = r.getParams();
        switch (method) {
            case "hash": return p.getParam("algorithm");
            case "zstdCompress": case "zstdDecompress": return "level " + p.getParam("level");
            case "gcmSeal": case "gcmOpen": return "AES-" + p.getParam("bits") + "-GCM " + p.getParam("provider");
            case "pipelineSeal": case "pipelineOpen": return "zstd " + p.getParam("zstd");
            default: return "";
        }
    }

    /** The pipeline against its stages: SHA-256, (zstd 1), AES-128-GCM with the JDK, CRC32C. */
    private static void summary(Map<String, Double> mbps) {
        System.out.println();
        System.out.println("Pipeline (SHA-256 digest, AES-128-GCM JDK, CRC32C) against its stages:");
        System.out.println();
        System.out.printf("| %-9s | %-6s | %-4s | %8s | %-26s | %13s | %16s |%n",
                "direction", "data", "zstd", "MB/s", "slowest stage (MB/s)", "% of slowest", "% of stage sum");
        System.out.println("|-----------|--------|------|----------|----------------------------|---------------|------------------|");
        for (String direction : new String[] {"seal", "open"}) {
            for (String data : new String[] {"random", "text"}) {
                for (String zstd : new String[] {"off", "1"}) {
                    Double pipe = mbps.get("pipeline" + cap(direction) + "|zstd " + zstd + "|" + data);
                    if (pipe == null) {
                        continue;
                    }
                    Map<String, Double> stages = new LinkedHashMap<>();
                    stages.put("SHA-256", mbps.get("hash|SHA256|" + data));
                    stages.put("CRC32C", mbps.get("hash|CRC32C|" + data));
                    stages.put("AES-128-GCM", mbps.get("gcm" + cap(direction) + "|AES-128-GCM JDK|" + data));
                    if (!zstd.equals("off") && !(direction.equals("open") && data.equals("random"))) {
                        stages.put("zstd", mbps.get((direction.equals("seal") ? "zstdCompress" : "zstdDecompress") + "|level 1|" + data));
                    }
                    if (stages.containsValue(null)) {
                        continue;
                    }
                    String slowest = null;
                    double sumOfTimes = 0;
                    for (var e : stages.entrySet()) {
                        if (slowest == null || e.getValue() < stages.get(slowest)) {
                            slowest = e.getKey();
                        }
                        sumOfTimes += 1 / e.getValue();
                    }
                    System.out.printf("| %-9s | %-6s | %-4s | %,8.0f | %-26s | %12.0f%% | %15.0f%% |%n", direction, data, zstd,
                            pipe, slowest + " (" + String.format("%,.0f", stages.get(slowest)) + ")",
                            100 * pipe / stages.get(slowest), 100 * pipe * sumOfTimes);
                }
            }
        }
        System.out.println();
        System.out.println("% of stage sum: pipeline speed over 1/(sum of 1/stage speed), the best one thread can do running"
                + " the stages one after another; the rest is the pipeline's own overhead.");
    }

    private static String cap(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}

package io.fsp.bench;

import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.RingReplacement;
import io.fsp.testkit.meridian.sim.LatencyMatrix;
import io.fsp.testkit.meridian.sim.MeridianSimulation;
import io.fsp.testkit.meridian.sim.SimOptions;
import io.fsp.testkit.meridian.sim.SimReport;
import io.fsp.meridian.wire.WireLimits;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fsp-bench meridian-sim}: runs the Meridian overlay in one JVM on a latency matrix and scores its
 * closest-node and multi-constraint answers against brute-force truth and against random choice.
 */
@Command(name = "meridian-sim", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Simulate the Meridian overlay on a latency matrix (virtual time, in-process transport).",
                "Prints success rate of multi-constraint queries where a satisfying node exists, quality of "
                        + "closest-node answers (answer RTT / true best), probes and hops per query, and the same "
                        + "figures for random choice.",
                "With --sizes, prints one table row per overlay size (N from sampled real and synthetic matrices)."})
public final class MeridianSimCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--matrix", paramLabel = "FILE",
            description = "Square RTT matrix in ms, one row per line, whitespace-separated, negative = unknown; .gz allowed.")
    Path matrix;

    @Option(names = "--synthetic", paramLabel = "N", description = "Use a synthetic Internet-like matrix of N locations.")
    Integer synthetic;

    @Option(names = "--rough", description = "Synthetic matrices get what real ones have: sub-millisecond RTTs between "
            + "locations of one site, about 2 %% unknown pairs and outliers of 500 to 2000 ms.")
    boolean rough;

    @Option(names = "--queries", defaultValue = "500", description = "Queries of each kind (default: ${DEFAULT-VALUE}).")
    int queries;

    @Option(names = "--seed", defaultValue = "1", description = "Random seed; same seed, same figures (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--json", description = "Print JSON (one object per run) instead of text.")
    boolean json;

    @Option(names = "--sizes", split = ",", paramLabel = "N",
            description = "Scale table: run for each number of locations N (sampled from --matrix when N fits, "
                    + "and synthetic for every N with --synthetic-sizes).")
    List<Integer> sizes;

    @Option(names = "--synthetic-sizes", split = ",", paramLabel = "N", description = "Scale table rows on synthetic matrices.")
    List<Integer> syntheticSizes;

    @Option(names = "--k", defaultValue = "8", description = "Primary members per ring (default: ${DEFAULT-VALUE}).")
    int primary;

    @Option(names = "--l", defaultValue = "8", description = "Secondary members per ring (default: ${DEFAULT-VALUE}).")
    int secondary;

    @Option(names = "--ring-base", defaultValue = "1.5", description = "Growth factor s of ring radii (default: ${DEFAULT-VALUE}).")
    double ringBase;

    @Option(names = "--rings", defaultValue = "17", description = "Number of rings (default: ${DEFAULT-VALUE}).")
    int ringCount;

    @Option(names = "--beta", defaultValue = "1", description = "Route acceptance threshold β (default: ${DEFAULT-VALUE}).")
    double beta;

    @Option(names = "--replacement", defaultValue = "HYPERVOLUME",
            description = "Ring replacement: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
    RingReplacement replacement;

    @Option(names = "--primaries-only", description = "Queries ask primary ring members only (default: primaries and secondaries).")
    boolean primariesOnly;

    @Option(names = "--bound-slack", defaultValue = "1.0", paramLabel = "MS",
            description = "Absolute widening of the β-bounds on the members a query asks, in ms; 0 = the paper's bounds "
                    + "(default: ${DEFAULT-VALUE}).")
    double boundSlack;

    @Option(names = "--max-probes-per-hop", defaultValue = "64", paramLabel = "N",
            description = "Most probes one node spends on one query (default: ${DEFAULT-VALUE}).")
    int maxProbesPerHop;

    @Option(names = "--min-members", defaultValue = "64", paramLabel = "N",
            description = "While a node has fewer members, a full ring takes more secondaries; 0 = k + l per ring at most "
                    + "(default: ${DEFAULT-VALUE}).")
    int minMembers;

    @Option(names = "--explain", description = "After each report, why the queries that missed did (where the nearest "
            + "good answer was lost on the query's path).")
    boolean explain;

    @Option(names = "--max-solutions", defaultValue = "10",
            description = "Tight queries have 1..this many satisfying members (default: ${DEFAULT-VALUE}).")
    int maxSolutions;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        SimOptions options;
        try {
            int entries = Math.min(255, Math.max(160, ringCount * (primary + secondary)));
            MeridianConfig config = MeridianConfig.builder().primaryPerRing(primary).secondaryPerRing(secondary)
                    .ringBase(ringBase).rings(ringCount)
                    .beta(beta).boundSlackMs(boundSlack).maxProbesPerHop(maxProbesPerHop).minMembers(minMembers).replacement(replacement).querySecondaries(!primariesOnly)
                    .wire(new WireLimits(8192, entries, Math.max(16, primary + secondary))).build();
            options = SimOptions.defaults().withConfig(config).withQueries(queries).withSeed(seed)
                    .withMaxSolutions(maxSolutions);
        } catch (IllegalArgumentException e) {
            err.println("fsp-bench meridian-sim: " + e.getMessage());
            return 2;
        }
        if (matrix == null && synthetic == null && syntheticSizes == null) {
            err.println("fsp-bench meridian-sim: give --matrix FILE, --synthetic N or --synthetic-sizes N,...");
            return 2;
        }
        LatencyMatrix real = null;
        if (matrix != null) {
            try {
                real = LatencyMatrix.load(matrix);
            } catch (IOException e) {
                err.println("fsp-bench meridian-sim: " + e.getMessage());
                return 1;
            }
        }
        List<LatencyMatrix> runs = new ArrayList<>();
        if (sizes == null && syntheticSizes == null) {
            runs.add(synthetic != null ? synthetic(synthetic, seed) : real);
        } else {
            for (int n : sizes == null ? List.<Integer>of() : sizes) {
                if (real != null && n <= real.size()) {
                    runs.add(real.sample(n, new Random(seed + n)));
                }
            }
            for (int n : syntheticSizes == null ? List.<Integer>of() : syntheticSizes) {
                runs.add(synthetic(n, seed + n));
            }
        }
        boolean table = sizes != null || syntheticSizes != null;
        if (table && !json) {
            out.println(header());
        }
        for (LatencyMatrix m : runs) {
            SimReport r;
            MeridianSimulation simulation = new MeridianSimulation(m, options);
            try {
                r = simulation.run();
            } catch (IllegalArgumentException e) {
                err.println("fsp-bench meridian-sim: " + m.name() + ": " + e.getMessage());
                return 2;
            }
            out.println(json ? r.toJson() : table ? row(r) : r.toText());
            if (explain) {
                simulation.misses().forEach((kind, causes) -> out.println("misses, " + kind + ": " + causes));
            }
            out.flush();
        }
        return 0;
    }

    private static String header() {
        return String.format(Locale.ROOT, "%-26s %5s %5s | %8s %6s %5s %8s | %8s %6s | %8s %7s %6s %5s | %8s",
                "matrix", "N", "log2N", "MCQ ok", "probes", "hops", "rand ok", "tight ok", "probes",
                "CN <=10%", "median", "probes", "hops", "rand<=10");
    }

    private static String row(SimReport r) {
        return String.format(Locale.ROOT, "%-26s %5d %5.1f | %7.1f%% %6.1f %5.2f %7.1f%% | %7.1f%% %6.1f | %7.1f%% %7.3f %6.1f %5.2f | %7.1f%%",
                r.matrix(), r.members(), Math.log(r.members()) / Math.log(2),
                100 * r.mcq().success(), r.mcq().meanProbes(), r.mcq().meanHops(), 100 * r.mcq().randomSuccess(),
                100 * r.tight().success(), r.tight().meanProbes(),
                100 * r.closest().within10(), r.closest().medianQuality(), r.closest().meanProbes(), r.closest().meanHops(),
                100 * r.closest().randomWithin10());
    }

    private LatencyMatrix synthetic(int n, long matrixSeed) {
        return rough ? LatencyMatrix.rough(n, matrixSeed) : LatencyMatrix.synthetic(n, matrixSeed);
    }
}

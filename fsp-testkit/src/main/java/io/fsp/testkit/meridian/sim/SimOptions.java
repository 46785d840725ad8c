package io.fsp.testkit.meridian.sim;

import io.fsp.meridian.MeridianConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * How a simulation runs.
 *
 * @param config        every node's parameters
 * @param seed          seeds every random choice: same seed, same run
 * @param queries       closest-node queries and, separately, multi-constraint queries to issue
 * @param targetShare   share of locations held out of the overlay to serve as query targets
 * @param warmup        virtual time the overlay gossips before the first query
 * @param maxSolutions  each MCQ is scaled to have K satisfying members, K uniform in 1..maxSolutions
 * @param wanted        results an MCQ asks for
 */
public record SimOptions(MeridianConfig config, long seed, int queries, double targetShare, Duration warmup,
                         int maxSolutions, int wanted) {
    public SimOptions {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(warmup, "warmup");
        if (queries < 1) {
            throw new IllegalArgumentException("queries: " + queries + " (expected: >= 1)");
        }
        if (!(targetShare > 0 && targetShare < 1)) {
            throw new IllegalArgumentException("targetShare: " + targetShare + " (expected: 0 < x < 1)");
        }
        if (maxSolutions < 1) {
            throw new IllegalArgumentException("maxSolutions: " + maxSolutions + " (expected: >= 1)");
        }
    }

    public static SimOptions defaults() {
        return new SimOptions(MeridianConfig.defaults(), 1, 500, 0.2, Duration.ofMinutes(5), 10, 1);
    }

    public SimOptions withSeed(long v) {
        return new SimOptions(config, v, queries, targetShare, warmup, maxSolutions, wanted);
    }

    public SimOptions withQueries(int v) {
        return new SimOptions(config, seed, v, targetShare, warmup, maxSolutions, wanted);
    }

    public SimOptions withConfig(MeridianConfig v) {
        return new SimOptions(v, seed, queries, targetShare, warmup, maxSolutions, wanted);
    }

    public SimOptions withWarmup(Duration v) {
        return new SimOptions(config, seed, queries, targetShare, v, maxSolutions, wanted);
    }

    public SimOptions withMaxSolutions(int v) {
        return new SimOptions(config, seed, queries, targetShare, warmup, v, wanted);
    }

    public SimOptions withWanted(int v) {
        return new SimOptions(config, seed, queries, targetShare, warmup, maxSolutions, v);
    }
}

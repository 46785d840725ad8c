package io.fsp.extension;

import java.util.Locale;

/** How the origin spreads blocks over its targets (FSPO {@code strategy}). */
public enum DistributionStrategy {
    /** Whichever target has room first gets the next block, so faster relays get more (the default). */
    FCFS,
    /** Targets in turn, one block each. */
    CYCLIC,
    /** Each target gets one contiguous share of the blocks. */
    PARTITIONED;

    public static DistributionStrategy parse(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "fcfs", "first-come-first-served" -> FCFS;
            case "cyclic" -> CYCLIC;
            case "partitioned" -> PARTITIONED;
            default -> throw new IllegalArgumentException("strategy: " + text + " (expected: fcfs, cyclic or partitioned)");
        };
    }

    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }
}

package io.fsp.meridian;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * One constraint of a multi-constraint query: the answer must lie within {@code maxRttMs} of
 * {@code target} (paper 004 §3.1, "(t_i, dc_ti)").
 */
public record Constraint(InetSocketAddress target, double maxRttMs) {
    public Constraint {
        Objects.requireNonNull(target, "target");
        if (target.isUnresolved()) {
            throw new IllegalArgumentException("target: " + target + " (expected: a resolved address)");
        }
        if (!(maxRttMs >= 0) || maxRttMs > 60_000) {
            throw new IllegalArgumentException("maxRttMs: " + maxRttMs + " (expected: 0..60000)");
        }
    }
}

package io.fsp.meridian.wire;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * One constraint of a multi-constraint query: the answer must lie within {@code maxRttMs} of
 * {@code target} (paper 004 §3.1, "(t_i, dc_ti)").
 */
public record Constraint(InetSocketAddress target, double maxRttMs) {
    /** Largest bound a query carries (the wire refuses more: docs/protocol.md §4.2). */
    public static final double MAX_RTT_MS = 60_000;

    public Constraint {
        Objects.requireNonNull(target, "target");
        if (target.isUnresolved()) {
            throw new IllegalArgumentException("target: " + target + " (expected: a resolved address)");
        }
        if (!(maxRttMs >= 0) || maxRttMs > MAX_RTT_MS) {
            throw new IllegalArgumentException("maxRttMs: " + maxRttMs + " (expected: 0.." + (long) MAX_RTT_MS + ")");
        }
    }

    /**
     * A bound derived from measured RTTs (a multiple or a ratio of them), clamped into 0..{@link #MAX_RTT_MS}.
     * Such arithmetic can exceed what a query may carry (a ratio over a sub-millisecond RTT reaches minutes);
     * clamping changes no answer unless a node lies over 60 s away (a probe times out after 2 s by default).
     */
    public static Constraint clamped(InetSocketAddress target, double maxRttMs) {
        if (Double.isNaN(maxRttMs)) {
            throw new IllegalArgumentException("maxRttMs: NaN (expected: 0.." + (long) MAX_RTT_MS + ")");
        }
        return new Constraint(target, Math.max(0, Math.min(MAX_RTT_MS, maxRttMs)));
    }
}

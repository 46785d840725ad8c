package io.fsp.meridian;

import io.fsp.meridian.wire.Constraint;
import java.util.List;

/**
 * "Find {@code wanted} nodes within dc_i of every target t_i" (paper 004 §3.1). For relay selection:
 * {(server, d_s), (client, d_r)}.
 */
public record MultiConstraintQuery(List<Constraint> constraints, int wanted) {
    /** Most results one query may ask for. */
    public static final int MAX_WANTED = 64;

    public MultiConstraintQuery {
        constraints = List.copyOf(constraints);
        if (constraints.isEmpty() || constraints.size() > 8) {
            throw new IllegalArgumentException("constraints: " + constraints.size() + " (expected: 1..8)");
        }
        if (wanted < 1 || wanted > MAX_WANTED) {
            throw new IllegalArgumentException("wanted: " + wanted + " (expected: 1.." + MAX_WANTED + ")");
        }
    }
}

package io.fsp.meridian;

import io.fsp.meridian.wire.Constraint;
import java.util.List;

/** The arithmetic of paper 004 §3.1: distance to the solution space and the β-bounds on ring members. */
public final class SolutionSpace {
    private SolutionSpace() {
    }

    /**
     * s = Σ max²(0, d(P,t_i) − dc_i). Zero means P satisfies every constraint. A negative (unknown)
     * distance counts as infinitely far.
     */
    public static double distance(List<Constraint> constraints, double[] rttMs) {
        double s = 0;
        for (int i = 0; i < constraints.size(); i++) {
            if (rttMs[i] < 0 || Double.isNaN(rttMs[i])) {
                return Double.POSITIVE_INFINITY;
            }
            double excess = Math.max(0, rttMs[i] - constraints.get(i).maxRttMs());
            s += excess * excess;
        }
        return s;
    }

    /**
     * Whether a ring member at RTT {@code memberRttMs} from P is worth asking: for every constraint i,
     * max(0, (1−β)(d(P,t_i) − dc_i) − slack) ≤ d(P,j) ≤ (1+β)(d(P,t_i) + dc_i) + slack. By the triangle
     * inequality every node that satisfies all constraints lies inside these bounds when β = 0. The
     * absolute {@code slackMs} keeps the bounds from shrinking to nothing around sub-millisecond RTTs,
     * where hosts of one site are as close to each other as to the target and the triangle inequality
     * says little. A target P could not measure (negative RTT) constrains nothing.
     */
    public static boolean withinBounds(List<Constraint> constraints, double[] ownRttMs, double memberRttMs, double beta,
                                       double slackMs) {
        for (int i = 0; i < constraints.size(); i++) {
            double d = ownRttMs[i];
            if (d < 0) {
                continue;
            }
            double dc = constraints.get(i).maxRttMs();
            double low = Math.max(0, (1 - beta) * (d - dc) - slackMs);
            double high = (1 + beta) * (d + dc) + slackMs;
            if (memberRttMs < low || memberRttMs > high) {
                return false;
            }
        }
        return true;
    }

    /** {@link #withinBounds(List, double[], double, double, double)} without slack: the paper's bounds. */
    public static boolean withinBounds(List<Constraint> constraints, double[] ownRttMs, double memberRttMs, double beta) {
        return withinBounds(constraints, ownRttMs, memberRttMs, beta, 0);
    }

    /**
     * Lower bound on a member's s from the triangle inequality (d(j,t) ≥ |d(P,t) − d(P,j)|); used only
     * to decide which members to ask first when the probe budget cannot cover all of them. A target P
     * could not measure adds nothing.
     */
    public static double lowerBound(List<Constraint> constraints, double[] ownRttMs, double memberRttMs) {
        double s = 0;
        for (int i = 0; i < constraints.size(); i++) {
            if (ownRttMs[i] < 0) {
                continue;
            }
            double excess = Math.max(0, Math.abs(ownRttMs[i] - memberRttMs) - constraints.get(i).maxRttMs());
            s += excess * excess;
        }
        return s;
    }

    /** The forwarding rule: forward to j only if s_j < β·s. */
    public static boolean worthForwarding(double sj, double s, double beta) {
        return sj < beta * s;
    }
}

package io.fsp.meridian;

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
     * max(0, (1−β)(d(P,t_i) − dc_i)) ≤ d(P,j) ≤ (1+β)(d(P,t_i) + dc_i). By the triangle inequality
     * every node that satisfies all constraints lies inside these bounds when β = 0.
     */
    public static boolean withinBounds(List<Constraint> constraints, double[] ownRttMs, double memberRttMs, double beta) {
        for (int i = 0; i < constraints.size(); i++) {
            double d = ownRttMs[i];
            double dc = constraints.get(i).maxRttMs();
            double low = Math.max(0, (1 - beta) * (d - dc));
            double high = (1 + beta) * (d + dc);
            if (memberRttMs < low || memberRttMs > high) {
                return false;
            }
        }
        return true;
    }

    /**
     * Lower bound on a member's s from the triangle inequality (d(j,t) ≥ |d(P,t) − d(P,j)|); used only
     * to decide which members to ask first when the probe budget cannot cover all of them.
     */
    public static double lowerBound(List<Constraint> constraints, double[] ownRttMs, double memberRttMs) {
        double s = 0;
        for (int i = 0; i < constraints.size(); i++) {
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

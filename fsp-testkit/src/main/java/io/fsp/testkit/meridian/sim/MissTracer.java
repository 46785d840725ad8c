package io.fsp.testkit.meridian.sim;

import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.MeridianNode;
import io.fsp.meridian.RingMember;
import io.fsp.meridian.SolutionSpace;
import io.fsp.meridian.wire.Constraint;
import io.fsp.meridian.wire.MeridianMessage;
import io.fsp.meridian.wire.MeridianMessage.MeasureRequest;
import io.fsp.meridian.wire.MeridianMessage.Query;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * Why a query missed: follows one query at a time through the nodes it visited (QUERY) and the members they asked
 * (MEASURE_REQUEST), and finds where the nearest good answer was lost.
 */
final class MissTracer implements SimNetwork.Tap {
    /** Where a good answer was lost, from the latest stage of a query to the earliest. */
    enum Cause {
        /** A good member was asked or visited, yet not returned (its answer was lost). */
        ASKED("asked but not returned"),
        /** A good member was in a visited node's rings within the bounds, but the per-hop probe budget left it out. */
        CUT_BY_BUDGET("cut by the per-hop budget"),
        /** A good member was in a visited node's rings, outside the bounds the node's own RTTs gave. */
        OUTSIDE_BOUNDS("outside the bounds"),
        /** No visited node had a good member in its rings. */
        NEVER_IN_A_VISITED_RING("never in a visited ring");

        final String text;

        Cause(String text) {
            this.text = text;
        }
    }

    private final SimNetwork network;
    private final MeridianConfig config;
    private final IntFunction<MeridianNode> nodeAt;
    private final List<Integer> visited = new ArrayList<>();
    private final Set<Integer> asked = new HashSet<>();

    /** {@code nodeAt} gives the node at a member location. */
    MissTracer(SimNetwork network, MeridianConfig config, IntFunction<MeridianNode> nodeAt) {
        this.network = network;
        this.config = config;
        this.nodeAt = nodeAt;
    }

    /** Starts following a query entering at location {@code entry}. */
    void start(int entry) {
        visited.clear();
        asked.clear();
        visited.add(entry);
    }

    @Override
    public void sent(int from, int to, MeridianMessage message) {
        if (message instanceof Query) {
            visited.add(to);
        } else if (message instanceof MeasureRequest) {
            asked.add(to);
        }
    }

    /** Why the query followed since {@link #start} returned none of the {@code good} locations. */
    Cause classify(Set<Integer> good, List<Constraint> constraints, int[] targetLocations) {
        if (visited.stream().anyMatch(good::contains) || asked.stream().anyMatch(good::contains)) {
            return Cause.ASKED;
        }
        Cause cause = Cause.NEVER_IN_A_VISITED_RING;
        for (int v : visited) {
            double[] own = new double[targetLocations.length];
            for (int i = 0; i < own.length; i++) {
                own[i] = network.matrix().rtt(v, targetLocations[i]);
            }
            for (RingMember m : nodeAt.apply(v).rings().members()) {
                if (good.contains(network.indexOf(m.peer()))) {
                    if (SolutionSpace.withinBounds(constraints, own, m.rttMs(), config.beta(), config.boundSlackMs())) {
                        return Cause.CUT_BY_BUDGET;
                    }
                    cause = Cause.OUTSIDE_BOUNDS;
                }
            }
        }
        return cause;
    }

    /** Counts of misses by cause, every cause listed. */
    static Map<Cause, Integer> emptyCounts() {
        Map<Cause, Integer> counts = new EnumMap<>(Cause.class);
        for (Cause c : Cause.values()) {
            counts.put(c, 0);
        }
        return counts;
    }

    /** "never in a visited ring 88, outside the bounds 22, ..." */
    static String toText(Map<Cause, Integer> counts) {
        StringBuilder b = new StringBuilder();
        for (Cause c : new Cause[] {Cause.NEVER_IN_A_VISITED_RING, Cause.OUTSIDE_BOUNDS, Cause.CUT_BY_BUDGET, Cause.ASKED}) {
            b.append(b.length() == 0 ? "" : ", ").append(c.text).append(' ').append(counts.get(c));
        }
        return b.toString();
    }
}

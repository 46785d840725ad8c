package io.fsp.meridian;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.meridian.wire.Constraint;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class SolutionSpaceTest {
    private static final List<Constraint> SENDER_50_RECEIVER_80 = List.of(
            new Constraint(new InetSocketAddress("127.0.0.1", 1), 50),
            new Constraint(new InetSocketAddress("127.0.0.1", 2), 80));

    @Test
    void distanceIsSumOfSquaredExcesses() {
        assertEquals(0, SolutionSpace.distance(SENDER_50_RECEIVER_80, new double[] {50, 80}));
        assertEquals(0, SolutionSpace.distance(SENDER_50_RECEIVER_80, new double[] {10, 20}));
        assertEquals(100, SolutionSpace.distance(SENDER_50_RECEIVER_80, new double[] {60, 20}));
        assertEquals(100 + 400, SolutionSpace.distance(SENDER_50_RECEIVER_80, new double[] {60, 100}));
        assertEquals(Double.POSITIVE_INFINITY, SolutionSpace.distance(SENDER_50_RECEIVER_80, new double[] {-1, 10}));
    }

    @Test
    void boundsAreOneMinusBetaTimesExcessToOnePlusBetaTimesSum() {
        double[] own = {150, 100}; // excess 100 and 20; sums 200 and 180
        // constraint 1: [0.5*100, 1.5*200] = [50, 300]; constraint 2: [0.5*20, 1.5*180] = [10, 270]
        assertFalse(SolutionSpace.withinBounds(SENDER_50_RECEIVER_80, own, 49.9, 0.5));
        assertTrue(SolutionSpace.withinBounds(SENDER_50_RECEIVER_80, own, 50, 0.5));
        assertTrue(SolutionSpace.withinBounds(SENDER_50_RECEIVER_80, own, 270, 0.5));
        assertFalse(SolutionSpace.withinBounds(SENDER_50_RECEIVER_80, own, 270.1, 0.5));
    }

    @Test
    void closestNodeBoundsAreMeridiansRing() {
        List<Constraint> target = List.of(new Constraint(new InetSocketAddress("127.0.0.1", 1), 0));
        double[] own = {100};
        assertFalse(SolutionSpace.withinBounds(target, own, 49, 0.5));
        assertTrue(SolutionSpace.withinBounds(target, own, 50, 0.5));
        assertTrue(SolutionSpace.withinBounds(target, own, 150, 0.5));
        assertFalse(SolutionSpace.withinBounds(target, own, 151, 0.5));
    }

    @Test
    void forwardsOnlyWhenMemberIsBelowBetaTimesOwnDistance() {
        assertTrue(SolutionSpace.worthForwarding(49, 100, 0.5));
        assertFalse(SolutionSpace.worthForwarding(50, 100, 0.5));
        assertFalse(SolutionSpace.worthForwarding(0, 0, 0.5), "a node inside the solution space cannot progress");
    }

    @Test
    void lowerBoundUsesTriangleInequality() {
        // Member 120 ms away, own 150/100: |150-120| = 30 <= 50, |100-120| = 20 <= 80 -> could satisfy.
        assertEquals(0, SolutionSpace.lowerBound(SENDER_50_RECEIVER_80, new double[] {150, 100}, 120));
        // Member 10 ms away: at least 140 and 90 -> excess >= 90 and 10.
        assertEquals(8100 + 100, SolutionSpace.lowerBound(SENDER_50_RECEIVER_80, new double[] {150, 100}, 10));
    }

    @Test
    void slackKeepsSubMillisecondBoundsFromShrinkingToNothing() {
        List<Constraint> target = List.of(new Constraint(new InetSocketAddress("127.0.0.1", 1), 0));
        double[] own = {0.2}; // a site-mate of the target: the paper's ring is [0.1, 0.3] ms
        assertFalse(SolutionSpace.withinBounds(target, own, 0.6, 0.5));
        assertTrue(SolutionSpace.withinBounds(target, own, 0.6, 0.5, 1));
        assertTrue(SolutionSpace.withinBounds(target, own, 1.3, 0.5, 1));
        assertFalse(SolutionSpace.withinBounds(target, own, 1.31, 0.5, 1));
        assertFalse(SolutionSpace.withinBounds(target, new double[] {100}, 48.9, 0.5, 1), "49 ms is 50 - 1");
    }

    @Test
    void aTargetThatCouldNotBeMeasuredBoundsNothing() {
        double[] own = {-1, 100}; // sender unknown; receiver: excess 20, sum 180 -> [10, 270] with beta 0.5
        assertTrue(SolutionSpace.withinBounds(SENDER_50_RECEIVER_80, own, 10, 0.5));
        assertFalse(SolutionSpace.withinBounds(SENDER_50_RECEIVER_80, own, 271, 0.5));
        assertEquals(0, SolutionSpace.lowerBound(SENDER_50_RECEIVER_80, own, 100));
        assertEquals(Double.POSITIVE_INFINITY, SolutionSpace.distance(SENDER_50_RECEIVER_80, own));
    }

    @Test
    void betaOneAsksEveryMemberTheTriangleInequalityAllowsAndForwardsOnAnyProgress() {
        List<Constraint> target = List.of(new Constraint(new InetSocketAddress("127.0.0.1", 1), 0));
        // A node closer than d = 100 to the target lies within 2d of P: [0, 200].
        assertTrue(SolutionSpace.withinBounds(target, new double[] {100}, 1, 1));
        assertTrue(SolutionSpace.withinBounds(target, new double[] {100}, 200, 1));
        assertFalse(SolutionSpace.withinBounds(target, new double[] {100}, 200.1, 1));
        assertTrue(SolutionSpace.worthForwarding(99.9, 100, 1));
        assertFalse(SolutionSpace.worthForwarding(100, 100, 1));
    }
}

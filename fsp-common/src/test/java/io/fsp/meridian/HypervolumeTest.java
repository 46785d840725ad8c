package io.fsp.meridian;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class HypervolumeTest {
    /** RTT matrix of points on a line at the given positions. */
    private static double[][] line(double... pos) {
        double[][] m = new double[pos.length][pos.length];
        for (int i = 0; i < pos.length; i++) {
            for (int j = 0; j < pos.length; j++) {
                m[i][j] = Math.abs(pos[i] - pos[j]);
            }
        }
        return m;
    }

    @Test
    void keepsOneMemberOfEachClusterRatherThanTwoNeighbours() {
        // Two clusters: {0,1,2} near 0 ms and {3,4,5} near 100 ms; keeping 2 must span both.
        List<Integer> kept = Hypervolume.select(line(0, 1, 2, 100, 101, 102), 2);
        assertEquals(2, kept.size());
        assertTrue(kept.get(0) <= 2 && kept.get(1) >= 3, "kept " + kept);
    }

    @Test
    void prefersSpreadOutPointsInTwoDimensions() {
        // Four corners of a square plus one point near a corner: keep 4 -> the corners.
        double[][] xy = {{0, 0}, {100, 0}, {0, 100}, {100, 100}, {2, 1}};
        double[][] rtt = new double[5][5];
        for (int i = 0; i < 5; i++) {
            for (int j = 0; j < 5; j++) {
                rtt[i][j] = Math.hypot(xy[i][0] - xy[j][0], xy[i][1] - xy[j][1]);
            }
        }
        List<Integer> kept = Hypervolume.select(rtt, 4);
        assertEquals(4, kept.size());
        assertTrue(kept.contains(1) && kept.contains(2) && kept.contains(3), "kept " + kept);
    }

    @Test
    void volumeOfTwoPointsIsTheirDistanceAndDeterminantIsExact() {
        assertEquals(5, Hypervolume.volume(new double[][] {{0, 0}, {3, 4}}, List.of(0, 1)), 1e-9);
        assertEquals(-2, Hypervolume.determinant(new double[][] {{1, 2}, {3, 4}}), 1e-9);
        assertEquals(0, Hypervolume.volume(new double[][] {{0, 0}, {1, 1}, {2, 2}}, List.of(0, 1, 2)), 1e-6);
    }
}

package io.fsp.it.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.testkit.meridian.sim.LatencyMatrix;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

class InternetLocationsTest {
    /**
     * Two sites 200 ms apart (0 and 1); 2 and 3 next to site 0, 4 and 5 next to site 1, 6 and 7 in between, 8 near
     * site 0 but no farther from site 1 than site 0 is (not "far from the client").
     */
    private static LatencyMatrix line() {
        double[] position = {0, 200, 10, 20, 190, 185, 100, 120, 30};
        double[][] rtt = new double[position.length][position.length];
        for (int i = 0; i < position.length; i++) {
            for (int j = 0; j < position.length; j++) {
                rtt[i][j] = Math.abs(position[i] - position[j]);
            }
        }
        rtt[8][1] = rtt[1][8] = 150; // a shortcut: 8 is near the server and less than 0.8 x 200 from the client
        return new LatencyMatrix("line", rtt);
    }

    @Test
    void picksTheFarPairAndRelaysNearEachEndAndElsewhere() {
        InternetLocations at = InternetLocations.pick(line(), 2, 40, 150, 250, 1);
        assertEquals(0, at.server());
        assertEquals(1, at.client());
        assertEquals(List.of(2, 3, 4, 5), at.relays().subList(0, 4), "nearest each end first");
        assertEquals(new HashSet<>(List.of(6, 7)), new HashSet<>(at.relays().subList(4, 6)), "elsewhere");
        assertEquals("near server", at.group(1));
        assertEquals("near client", at.group(2));
        assertEquals("elsewhere", at.group(5));
        double[][] rtt = at.rttMs();
        assertEquals(200, rtt[0][1]);
        assertEquals(10, rtt[1][2 + 2], "client to relay 2 (location 4)");
    }

    @Test
    void refusesWhenNoPairHasEnoughRelaysNearBothEnds() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> InternetLocations.pick(line(), 3, 40, 150, 250, 1));
        assertTrue(e.getMessage().contains("most: 2"), e.getMessage());
    }

    @Test
    void planetLabHasTwelveRelaysInThreeGroups() throws Exception {
        InternetLocations at = InternetLocations.planetLab(4, 40, 150, 250, 1);
        LatencyMatrix m = at.matrix();
        double r = at.serverClientMs();
        assertTrue(r >= 150 && r <= 250, "server-client RTT " + r);
        assertEquals(12, new HashSet<>(at.relays()).size());
        for (int i = 0; i < 12; i++) {
            int k = at.relays().get(i);
            double toServer = m.rtt(k, at.server());
            double toClient = m.rtt(k, at.client());
            switch (at.group(i)) {
                case "near server" -> assertTrue(toServer <= 40 && toClient >= 0.8 * r, "relay " + i);
                case "near client" -> assertTrue(toClient <= 40 && toServer >= 0.8 * r, "relay " + i);
                default -> assertTrue(toServer > 40 && toClient > 40, "relay " + i);
            }
        }
    }
}

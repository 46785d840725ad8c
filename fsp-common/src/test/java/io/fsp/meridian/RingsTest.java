package io.fsp.meridian;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RingsTest {
    private final MeridianConfig config = MeridianConfig.libMeridian();

    /** Peer {@code i}, each on its own IP address (of a private network, where sites are not counted). */
    private static InetSocketAddress peer(int i) {
        return new InetSocketAddress("10.0." + (i / 250) + "." + (1 + i % 250), 7400);
    }

    @Test
    void oneIpAddressHoldsAtMostMembersPerIpSeats() {
        Rings rings = new Rings(MeridianConfig.defaults());
        int taken = 0;
        for (int port = 1; port <= 50; port++) {
            if (rings.offer(new InetSocketAddress("10.9.9.9", port), port, 0)) {
                taken++;
            }
        }
        assertEquals(MeridianConfig.defaults().membersPerIp(), taken, "ports of one host beyond the limit are refused");
        assertTrue(rings.offer(peer(1), 5, 0), "another host still gets a seat");
        rings.remove(new InetSocketAddress("10.9.9.9", 1));
        assertTrue(rings.offer(new InetSocketAddress("10.9.9.9", 51), 5, 0), "a freed seat can be taken again");
        assertFalse(rings.offer(new InetSocketAddress("10.9.9.9", 52), 5, 0));
    }

    @Test
    void oneIpv4Slash24OrIpv6Slash48HoldsAtMostMembersPerSiteSeats() {
        Rings rings = new Rings(MeridianConfig.defaults());
        int site = MeridianConfig.defaults().membersPerSite();
        int v4 = 0;
        int v6 = 0;
        for (int i = 1; i <= 50; i++) {
            if (rings.offer(new InetSocketAddress("192.0.2." + i, 7400), i, 0)) {
                v4++;
            }
            if (rings.offer(new InetSocketAddress("2001:db8:7:" + Integer.toHexString(i) + "::1", 7400), i, 0)) {
                v6++; // a /64 of its own each, all in one /48
            }
        }
        assertEquals(site, v4, "addresses of one /24 beyond the limit are refused");
        assertEquals(site, v6, "addresses of one /48 too, whatever their /64");
        assertTrue(rings.offer(new InetSocketAddress("192.0.3.1", 7400), 5, 0), "the next /24 is another site");
        assertTrue(rings.offer(new InetSocketAddress("2001:db8:8::1", 7400), 5, 0), "the next /48 is another site");
        rings.remove(new InetSocketAddress("192.0.2.1", 7400));
        assertTrue(rings.offer(new InetSocketAddress("192.0.2.77", 7400), 5, 0), "a freed seat can be taken again");
        assertFalse(rings.offer(new InetSocketAddress("192.0.2.78", 7400), 5, 0));
        for (String privateNetwork : List.of("10.1.2.", "192.168.7.", "172.16.5.", "fd00:1:2::")) {
            int taken = 0;
            for (int i = 1; i <= 10; i++) {
                if (rings.offer(new InetSocketAddress(privateNetwork + i, 7400), 100 + i, 0)) {
                    taken++;
                }
            }
            assertEquals(10, taken, "a private network's hosts are not a site: " + privateNetwork);
        }
    }

    @ParameterizedTest(name = "{0} ms -> ring {1}")
    @CsvSource({"0,0", "0.999,0", "1,1", "1.999,1", "2,2", "3.9,2", "4,3", "127.9,7", "128,8", "255.99,8",
            "256,9", "511,9", "5000,9"})
    void placesRttInRingWithExponentialRadii(double rtt, int ring) {
        assertEquals(ring, new Rings(config).ringOf(rtt));
    }

    @Test
    void ringEdgesFollowAlphaTimesSToTheI() {
        assertEquals(0, config.ringLowerMs(0));
        assertEquals(1, config.ringLowerMs(1));
        assertEquals(2, config.ringUpperMs(1));
        assertEquals(256, config.ringLowerMs(9));
        assertEquals(Double.POSITIVE_INFINITY, config.ringUpperMs(9));
    }

    @Test
    void fillsKPrimariesThenLSecondariesThenReplacesTheOldestSecondary() {
        Rings rings = new Rings(config);
        for (int i = 0; i < 8; i++) {
            assertTrue(rings.offer(peer(i), 50 + i, i));
        }
        List<RingMember> ring = rings.ring(6);
        assertEquals(8, ring.size());
        assertEquals(4, ring.stream().filter(RingMember::primary).count());
        assertTrue(rings.offer(peer(8), 60, 100));
        assertEquals(8, rings.ring(6).size());
        assertFalse(rings.contains(peer(4)), "oldest secondary replaced");
        assertTrue(rings.contains(peer(0)), "primaries stay");
        assertTrue(rings.contains(peer(8)));
    }

    /**
     * A host whose RTTs to most others are one placeholder value (the PlanetLab matrix has 31 locations 154 ms from
     * over 200 others) puts them all in one ring; with k + l seats there it knew 16 members and answered queries
     * from those alone. Seats its other rings leave empty take more of them, up to minMembers.
     */
    @Test
    void aCrowdedRingTakesSeatsOtherRingsLeaveEmptyUpToMinMembers() {
        Rings rings = new Rings(MeridianConfig.defaults());
        for (int i = 0; i < 200; i++) {
            rings.offer(peer(i), 154, i);
        }
        int ring = rings.ringOf(154);
        assertEquals(64, rings.ring(ring).size());
        assertEquals(64, rings.size());
        assertEquals(8, rings.ring(ring).stream().filter(RingMember::primary).count());
        assertTrue(rings.contains(peer(199)), "beyond minMembers the newest replaces the oldest secondary");
        assertFalse(rings.contains(peer(8)), "the oldest secondary went");
        assertTrue(rings.offer(peer(1000), 3, 1000), "another ring still has seats");
        assertEquals(65, rings.size());
    }

    @Test
    void withoutMinMembersARingHoldsKPlusL() {
        Rings rings = new Rings(config);
        for (int i = 0; i < 50; i++) {
            rings.offer(peer(i), 154, i);
        }
        assertEquals(8, rings.size());
    }

    @Test
    void removingAPrimaryPromotesASecondary() {
        Rings rings = new Rings(config);
        for (int i = 0; i < 6; i++) {
            rings.offer(peer(i), 50, i);
        }
        rings.remove(peer(0));
        assertEquals(4, rings.ring(6).stream().filter(RingMember::primary).count());
        assertTrue(rings.member(peer(4)).primary());
    }

    @Test
    void smoothsRttAndMovesMemberWhenItLeavesItsRing() {
        Rings rings = new Rings(config);
        rings.offer(peer(1), 100, 0);
        assertEquals(7, rings.member(peer(1)).ring());
        rings.offer(peer(1), 200, 1); // 0.7 * 100 + 0.3 * 200 = 130
        assertEquals(130, rings.member(peer(1)).rttMs(), 1e-9);
        assertEquals(8, rings.member(peer(1)).ring());
        assertEquals(1, rings.size());
    }

    @Test
    void aLowerSampleIsTakenAtOnceAndMovesTheMemberIn() {
        Rings rings = new Rings(config);
        rings.offer(peer(1), 140, 0); // measured while the peer was busy starting
        assertEquals(8, rings.member(peer(1)).ring());
        rings.offer(peer(1), 2, 1);
        assertEquals(2, rings.member(peer(1)).rttMs(), 1e-9, "not 0.7 * 140 + 0.3 * 2 = 98.6");
        assertEquals(2, rings.member(peer(1)).ring());
        rings.offer(peer(1), 12, 2); // a rise is smoothed: 0.7 * 2 + 0.3 * 12 = 5
        assertEquals(5, rings.member(peer(1)).rttMs(), 1e-9);
        assertEquals(3, rings.member(peer(1)).ring());
        assertEquals(1, rings.size());
    }

    @Test
    void dropsMemberAfterTwoLostProbesInARow() {
        Rings rings = new Rings(config);
        rings.offer(peer(1), 10, 0);
        assertFalse(rings.probeLost(peer(1)));
        rings.offer(peer(1), 10, 1); // an answer resets the count
        assertFalse(rings.probeLost(peer(1)));
        assertTrue(rings.probeLost(peer(1)));
        assertFalse(rings.contains(peer(1)));
    }

    @Test
    void choosePrimariesMarksExactlyTheChosenMembers() {
        Rings rings = new Rings(config);
        for (int i = 0; i < 8; i++) {
            rings.offer(peer(i), 50, i);
        }
        rings.choosePrimaries(6, Set.of(peer(4), peer(5), peer(6), peer(7)));
        for (int i = 0; i < 8; i++) {
            assertEquals(i >= 4, rings.member(peer(i)).primary());
        }
    }

    @Test
    void rejectsNegativeRtt() {
        Rings rings = new Rings(config);
        assertFalse(rings.offer(peer(1), -1, 0));
        assertEquals(0, rings.size());
    }
}

package io.fsp.testkit.meridian.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.wire.WireLimits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The overlay on the real PlanetLab latency matrix (303 locations, path from the pom) with a fixed
 * seed. Thresholds sit a little below the figures measured with these seeds so that they catch
 * regressions, not noise.
 */
class MeridianSimulationTest {
    private static LatencyMatrix planetLab;

    @BeforeAll
    static void loadMatrix() throws IOException {
        String path = System.getProperty("fsp.latencyMatrix", "src/test/resources/latency/planetlab-303-rtt-ms.txt.gz");
        assertTrue(Files.isReadable(Path.of(path)), "latency matrix not found at " + path
                + " (set -Dfsp.latencyMatrix=FILE)");
        planetLab = LatencyMatrix.load(Path.of(path));
        assertEquals(303, planetLab.size());
    }

    @Test
    void libMeridianRingSizeBeatsRandomChoiceByFar() {
        SimReport r = new MeridianSimulation(planetLab, SimOptions.defaults().withQueries(300)
                .withConfig(MeridianConfig.libMeridian())).run();
        assertEquals(0, r.mcq().wrong(), "every hit satisfies its constraints");
        assertTrue(r.mcq().success() >= 0.84, r.toText());
        assertTrue(r.mcq().success() > 3 * r.mcq().randomSuccess(), r.toText());
        assertTrue(r.closest().within10() >= 0.55, r.toText());
        assertTrue(r.closest().within10() > 2 * r.closest().randomWithin10(), r.toText());
        // Probes stay far below the per-query bound (8 hops x 64) and below asking everyone (242 x 2).
        assertTrue(r.mcq().meanProbes() <= 60, r.toText());
        assertTrue(r.mcq().p90Probes() <= 100, r.toText());
        assertTrue(r.closest().meanProbes() <= 30, r.toText());
    }

    /**
     * FSP's targets on two rough matrices (sub-millisecond site-mates, unknown pairs, outliers; 240 members):
     * MCQ success >= 95 % where a satisfying member exists, tight queries >= 85 %, closest-node answers
     * within 10 % of the best >= 90 %, probes per query a small multiple of log2 N. The paper's parameters
     * reached 73 to 76 % closest-node answers and 94 % MCQ success on these matrices.
     */
    @Test
    void defaultsReachTheTargetsOnRoughMatrices() {
        assertEquals(8, MeridianConfig.defaults().primaryPerRing());
        assertEquals(8, MeridianConfig.defaults().secondaryPerRing());
        assertEquals(WireLimits.DEFAULT, MeridianConfig.defaults().wire());
        for (long seed = 1; seed <= 2; seed++) {
            assertTargets(new MeridianSimulation(LatencyMatrix.rough(300, seed),
                    SimOptions.defaults().withQueries(200).withSeed(seed)).run());
        }
    }

    /**
     * The same targets on the real matrix, seeds 1 to 5 (500 queries per kind). Its 31 placeholder hosts, 154 ms
     * from over 200 others, put every peer in one ring: with k + l seats there they knew 16 members, and before
     * such a ring could take the seats the others leave empty (minMembers) seeds 1, 3 and 4 missed MCQ success
     * (94.4-94.8 %) and seed 1 the closest node (85.8 %).
     */
    @Test
    void defaultsReachTheTargetsOnThePlanetLabMatrix() {
        double closest = 0;
        for (long seed = 1; seed <= 5; seed++) {
            SimReport r = new MeridianSimulation(planetLab, SimOptions.defaults().withQueries(500).withSeed(seed)).run();
            assertTargets(r, 0.0);
            closest += r.closest().within10() / 5;
        }
        // The closest-node target over all 2,500 queries: one seed's 500 carry a standard error of 1.3 points
        // (seed 1 gives 88.4 %, the five together 92.2 %).
        assertTrue(closest >= 0.90, "closest node within 10 %, seeds 1-5: " + closest);
    }

    private static void assertTargets(SimReport r) {
        assertTargets(r, 0.90);
    }

    /** The targets, the closest node within 10 % of the best for at least {@code closestWithin10} of the queries. */
    private static void assertTargets(SimReport r, double closestWithin10) {
        double log2n = Math.log(r.members()) / Math.log(2);
        assertEquals(0, r.mcq().wrong() + r.tight().wrong(), "every hit satisfies its constraints");
        assertTrue(r.mcq().success() >= 0.95, r.toText());
        assertTrue(r.tight().success() >= 0.85, r.toText());
        assertTrue(r.closest().within10() >= closestWithin10, r.toText());
        assertTrue(r.mcq().meanProbes() <= 10 * log2n && r.tight().meanProbes() <= 10 * log2n
                && r.closest().meanProbes() <= 10 * log2n, r.toText());
    }

    /**
     * Every miss gets one cause. On the real matrix closest-node answers are mostly lost before the query comes
     * near them (no visited node knows them) and MCQ answers also to the per-hop budget (docs/meridian.md).
     */
    @Test
    void everyMissIsTracedToWhereItsAnswerWasLost() {
        MeridianSimulation sim = new MeridianSimulation(planetLab, SimOptions.defaults().withQueries(300));
        SimReport r = sim.run();
        Map<String, Map<MissTracer.Cause, Integer>> misses = sim.missCounts();
        assertEquals(List.of("closest node", "MCQ", "tight"), List.copyOf(misses.keySet()));
        int closestMisses = misses.get("closest node").values().stream().mapToInt(Integer::intValue).sum();
        int mcqMisses = misses.get("MCQ").values().stream().mapToInt(Integer::intValue).sum();
        assertEquals(Math.round(300 * (1 - r.closest().within10())), closestMisses, r.toText());
        assertEquals(Math.round(300 * (1 - r.mcq().success())), mcqMisses, r.toText());
        assertTrue(misses.get("closest node").get(MissTracer.Cause.NEVER_IN_A_VISITED_RING) > 0, misses.toString());
        assertTrue(misses.get("MCQ").get(MissTracer.Cause.CUT_BY_BUDGET) > 0, misses.toString());
        // Tight bounds rest on a member's RTT; rounded below it, that member satisfied the scorer but not the node.
        assertEquals(0, misses.get("tight").get(MissTracer.Cause.ASKED), misses.toString());
    }

    @Test
    void sameSeedSameFigures() {
        SimOptions o = SimOptions.defaults().withQueries(50).withSeed(9);
        LatencyMatrix m = LatencyMatrix.synthetic(150, 4);
        assertEquals(new MeridianSimulation(m, o).run(), new MeridianSimulation(m, o).run());
    }

    @Test
    void roughMatricesWithSubMillisecondUnknownAndOutlierRttsRunToTheEnd() {
        for (long seed = 1; seed <= 4; seed++) {
            LatencyMatrix m = LatencyMatrix.rough(200, seed);
            SimReport r = new MeridianSimulation(m, SimOptions.defaults().withQueries(200).withSeed(seed)
                    .withWarmup(Duration.ofMinutes(2))).run(); // seeds 2 and 4 built bounds over 60 s
            assertEquals(200, r.tight().queries(), r.toText());
            assertEquals(0, r.tight().wrong(), "every hit satisfies its constraints");
            assertEquals(0, r.mcq().wrong(), "every hit satisfies its constraints");
            assertTrue(r.tight().success() > 0 && r.mcq().success() > 0 && r.closest().within10() > 0, r.toText());
        }
    }
}

package io.fsp.testkit.meridian.sim;

import java.util.Locale;

/**
 * What a simulation measured. "Random" is the baseline of picking one member at random; "random@probes"
 * samples as many random members as Meridian spent probes and keeps the best.
 *
 * @param matrix                 name of the latency matrix
 * @param members                overlay size N
 * @param targets                held-out target locations
 * @param meanRingMembers        mean members per node after warm-up
 * @param maintenancePingsPerNodeMinute probes per node per minute spent on gossip and ring upkeep
 * @param closest                closest-node figures
 * @param mcq                    multi-constraint figures, relay-selection queries
 * @param tight                  multi-constraint figures, hard queries with few satisfying members
 */
public record SimReport(String matrix, int members, int targets, double meanRingMembers,
                        double maintenancePingsPerNodeMinute, ClosestStats closest, McqStats mcq, McqStats tight) {

    /**
     * @param queries         queries run
     * @param within10        share of answers within 10 % of the true closest member's RTT
     * @param exact           share of answers that are the true closest member
     * @param medianQuality   median of answer RTT / true best RTT
     * @param meanProbes      probes per query
     * @param p90Probes       90th percentile of probes per query
     * @param meanHops        nodes visited per query
     * @param randomWithin10  the same share for one random member
     * @param randomMedianQuality  median quality of one random member
     * @param budgetWithin10  the share for the best of as many random members as Meridian probed
     */
    public record ClosestStats(int queries, double within10, double exact, double medianQuality, double meanProbes,
                               double p90Probes, double meanHops, double randomWithin10, double randomMedianQuality,
                               double budgetWithin10) { }

    /**
     * @param queries          queries run (each has at least one satisfying member)
     * @param success          share of queries that returned at least one satisfying member
     * @param wrong            hits returned that do not satisfy the constraints (should be 0)
     * @param meanSolutionSize mean number of satisfying members per query
     * @param meanProbes       probes per query
     * @param p90Probes        90th percentile of probes per query
     * @param meanHops         nodes visited per query
     * @param randomSuccess    success of one random member
     * @param budgetSuccess    success of as many random members as Meridian's probes could measure
     */
    public record McqStats(int queries, double success, int wrong, double meanSolutionSize, double meanProbes,
                           double p90Probes, double meanHops, double randomSuccess, double budgetSuccess) {
        String toText(String title) {
            return String.format(Locale.ROOT, "%s (%d queries, %.1f satisfying members on average): success %.1f%%, "
                            + "wrong hits %d, probes/query %.1f (p90 %.0f), hops %.2f%n"
                            + "  random member: success %.1f%%; random@probes: success %.1f%%%n",
                    title, queries, meanSolutionSize, 100 * success, wrong, meanProbes, p90Probes, meanHops,
                    100 * randomSuccess, 100 * budgetSuccess);
        }

        String toJson() {
            return String.format(Locale.ROOT, "{\"queries\":%d,\"success\":%.4f,\"wrong\":%d,\"meanSolutionSize\":%.2f,"
                            + "\"meanProbes\":%.2f,\"p90Probes\":%.0f,\"meanHops\":%.3f,\"randomSuccess\":%.4f,"
                            + "\"budgetSuccess\":%.4f}",
                    queries, success, wrong, meanSolutionSize, meanProbes, p90Probes, meanHops, randomSuccess, budgetSuccess);
        }
    }

    public String toText() {
        return String.format(Locale.ROOT, """
                matrix %s: %d overlay members, %d targets, %.1f ring members per node, %.1f maintenance probes per node-minute
                closest-node (%d queries): within 10%% of true closest %.1f%%, exact %.1f%%, median RTT/best %.3f, \
                probes/query %.1f (p90 %.0f), hops %.2f
                  random member: within 10%% %.1f%%, median RTT/best %.3f; best of random@probes: within 10%% %.1f%%
                %s
                %s""",
                matrix, members, targets, meanRingMembers, maintenancePingsPerNodeMinute,
                closest.queries, 100 * closest.within10, 100 * closest.exact, closest.medianQuality,
                closest.meanProbes, closest.p90Probes, closest.meanHops,
                100 * closest.randomWithin10, closest.randomMedianQuality, 100 * closest.budgetWithin10,
                mcq.toText("multi-constraint, relay selection"), tight.toText("multi-constraint, tight"));
    }

    public String toJson() {
        return String.format(Locale.ROOT, "{\"matrix\":\"%s\",\"members\":%d,\"targets\":%d,\"meanRingMembers\":%.2f,"
                        + "\"maintenancePingsPerNodeMinute\":%.2f,"
                        + "\"closest\":{\"queries\":%d,\"within10\":%.4f,\"exact\":%.4f,\"medianQuality\":%.4f,"
                        + "\"meanProbes\":%.2f,\"p90Probes\":%.0f,\"meanHops\":%.3f,\"randomWithin10\":%.4f,"
                        + "\"randomMedianQuality\":%.4f,\"budgetWithin10\":%.4f},"
                        + "\"mcq\":%s,\"tight\":%s}",
                matrix.replace("\\", "\\\\").replace("\"", "\\\""), members, targets, meanRingMembers,
                maintenancePingsPerNodeMinute,
                closest.queries, closest.within10, closest.exact, closest.medianQuality, closest.meanProbes,
                closest.p90Probes, closest.meanHops, closest.randomWithin10, closest.randomMedianQuality,
                closest.budgetWithin10,
                mcq.toJson(), tight.toJson());
    }
}

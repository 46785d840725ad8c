package io.fsp.meridian;

import io.fsp.config.Durations;
import io.fsp.meridian.wire.WireLimits;
import java.time.Duration;
import java.util.Objects;

/**
 * Meridian node parameters. FSP's defaults differ from the public reference implementation (libMeridian,
 * {@link #libMeridian()}: k = 4 + l = 4 members per ring, s = 2, 10 rings, β = 0.5, the paper's bounds)
 * where that misses FSP's targets on latency matrices with the properties of real ones (clusters with
 * sub-millisecond RTTs, unknown pairs, triangle-inequality violations; docs/meridian.md, "Defaults"):
 * k = 8 primary and l = 8 secondary members per ring; rings growing by s = 1.5 from α = 1 ms, 17 of them
 * (the last from α·s^15 ≈ 438 ms), so that the crowded rings of long RTTs are split into more rings of 16;
 * β = 1, which asks every member the triangle inequality allows ([0, 2(d + dc)]) and forwards on any
 * progress; the bounds widened by 1 ms so that sub-millisecond RTTs do not shrink them to nothing; a crowded ring
 * takes seats the others leave empty until the node has 64 members, so that a host whose RTTs to most others are one
 * value does not know only k + l of them.
 * Gossip every 5 s during the first minute and every 30 s after, ring-membership replacement every 60 s.
 *
 * @param primaryPerRing        k
 * @param secondaryPerRing      l
 * @param ringBase              s, the growth factor of ring radii
 * @param alphaMs               α, the outer radius of the innermost ring
 * @param rings                 number of rings
 * @param beta                  β, the route acceptance threshold (0..1)
 * @param gossipInitialInterval gossip period during {@code gossipInitialPeriod} after start
 * @param gossipInitialPeriod   how long the fast initial gossip lasts
 * @param gossipInterval        gossip period after that
 * @param replacementInterval   period of member re-probing and primary re-selection
 * @param probeTimeout          a probe without answer after this long counts as lost
 * @param rttSmoothing          weight of a new sample in the smoothed member RTT (EWMA) when it is higher; a lower one is taken at once
 * @param probeCacheTtl         a measurement younger than this is reused instead of probing again
 * @param maxHops               most nodes a query visits (a query's own hop limit is capped by this)
 * @param maxProbesPerHop       most probes one node spends (itself and via members) on one query
 * @param gossipProbesPerSecond most probes per second gossip from others may trigger
 * @param requestProbesPerSecond most probes per second queries and measure requests may trigger
 * @param queryTimeout          how long the origin of a query waits for its reply
 * @param replacement           how primaries are chosen in a full ring
 * @param querySecondaries      whether queries consider secondary members too (not only primaries)
 * @param boundSlackMs          absolute widening of the β-bounds on ring members a query asks (ms)
 * @param minMembers            while a node has fewer members, a full ring takes more secondaries (seats other rings leave empty)
 * @param membersPerIp          most ring members sharing one IP address (one host answering from many ports fills no rings)
 * @param membersPerSite        most ring members in one IPv4 /24 or IPv6 /48, the smallest prefixes routed on the
 *                              Internet: whoever holds an address there may hold them all, so many addresses of one
 *                              network fill no rings either (private networks, 10/8 and the like, are not counted)
 * @param datagramsPerSecondPerIp most datagrams per second (burst: two seconds' worth) a node handles from one IP address;
 *                              beyond that it drops them unanswered
 * @param wire                  datagram size limits
 */
public record MeridianConfig(int primaryPerRing, int secondaryPerRing, double ringBase, double alphaMs, int rings,
                             double beta, Duration gossipInitialInterval, Duration gossipInitialPeriod,
                             Duration gossipInterval, Duration replacementInterval, Duration probeTimeout,
                             double rttSmoothing, Duration probeCacheTtl, int maxHops, int maxProbesPerHop,
                             int gossipProbesPerSecond, int requestProbesPerSecond, Duration queryTimeout, RingReplacement replacement,
                             boolean querySecondaries, double boundSlackMs, int minMembers, int membersPerIp,
                             int membersPerSite, int datagramsPerSecondPerIp, WireLimits wire) {

    public MeridianConfig {
        range("primaryPerRing", primaryPerRing, 1, 32);
        range("secondaryPerRing", secondaryPerRing, 0, 32);
        range("rings", rings, 2, 32);
        range("maxHops", maxHops, 1, 255);
        range("maxProbesPerHop", maxProbesPerHop, 1, 4096);
        range("minMembers", minMembers, 0, 4096);
        range("membersPerIp", membersPerIp, 1, 4096);
        range("membersPerSite", membersPerSite, 1, 4096);
        range("datagramsPerSecondPerIp", datagramsPerSecondPerIp, 1, 1_000_000);
        range("gossipProbesPerSecond", gossipProbesPerSecond, 1, 1_000_000);
        range("requestProbesPerSecond", requestProbesPerSecond, 1, 1_000_000);
        if (!(ringBase > 1) || ringBase > 16) {
            throw new IllegalArgumentException("ringBase: " + ringBase + " (expected: > 1 and <= 16)");
        }
        if (!(alphaMs > 0) || alphaMs > 10_000) {
            throw new IllegalArgumentException("alphaMs: " + alphaMs + " (expected: > 0 and <= 10000)");
        }
        if (!(beta >= 0 && beta <= 1)) {
            throw new IllegalArgumentException("beta: " + beta + " (expected: 0..1)");
        }
        if (!(rttSmoothing > 0 && rttSmoothing <= 1)) {
            throw new IllegalArgumentException("rttSmoothing: " + rttSmoothing + " (expected: > 0 and <= 1)");
        }
        positive("gossipInitialInterval", gossipInitialInterval);
        Objects.requireNonNull(gossipInitialPeriod, "gossipInitialPeriod");
        positive("gossipInterval", gossipInterval);
        positive("replacementInterval", replacementInterval);
        positive("probeTimeout", probeTimeout);
        Objects.requireNonNull(probeCacheTtl, "probeCacheTtl");
        positive("queryTimeout", queryTimeout);
        Objects.requireNonNull(replacement, "replacement");
        Objects.requireNonNull(wire, "wire");
        if (!(boundSlackMs >= 0) || boundSlackMs > 10_000) {
            throw new IllegalArgumentException("boundSlackMs: " + boundSlackMs + " (expected: 0..10000)");
        }
        int members = primaryPerRing + secondaryPerRing;
        if (members - 1 > wire.maxTargets() && replacement == RingReplacement.HYPERVOLUME) {
            throw new IllegalArgumentException("primaryPerRing + secondaryPerRing: " + members
                    + " (expected: <= wire.maxTargets + 1 = " + (wire.maxTargets() + 1) + " for HYPERVOLUME)");
        }
    }

    public static MeridianConfig defaults() {
        return builder().build();
    }

    /**
     * The reference implementation's parameters: k = 4 primary and l = 4 secondary members per ring, s = 2,
     * 10 rings (the last from 256 ms), β = 0.5 and the paper's bounds without slack.
     */
    public static MeridianConfig libMeridian() {
        return builder().primaryPerRing(4).secondaryPerRing(4).ringBase(2).rings(10).beta(0.5).boundSlackMs(0)
                .minMembers(0).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder pre-filled with the defaults, for this config's values changed one by one. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.primaryPerRing = primaryPerRing;
        b.secondaryPerRing = secondaryPerRing;
        b.ringBase = ringBase;
        b.alphaMs = alphaMs;
        b.rings = rings;
        b.beta = beta;
        b.gossipInitialInterval = gossipInitialInterval;
        b.gossipInitialPeriod = gossipInitialPeriod;
        b.gossipInterval = gossipInterval;
        b.replacementInterval = replacementInterval;
        b.probeTimeout = probeTimeout;
        b.rttSmoothing = rttSmoothing;
        b.probeCacheTtl = probeCacheTtl;
        b.maxHops = maxHops;
        b.maxProbesPerHop = maxProbesPerHop;
        b.gossipProbesPerSecond = gossipProbesPerSecond;
        b.requestProbesPerSecond = requestProbesPerSecond;
        b.queryTimeout = queryTimeout;
        b.replacement = replacement;
        b.querySecondaries = querySecondaries;
        b.boundSlackMs = boundSlackMs;
        b.minMembers = minMembers;
        b.membersPerIp = membersPerIp;
        b.membersPerSite = membersPerSite;
        b.datagramsPerSecondPerIp = datagramsPerSecondPerIp;
        b.wire = wire;
        return b;
    }

    /** Lower edge of ring {@code ring} in ms (0 for the innermost ring). */
    public double ringLowerMs(int ring) {
        return ring == 0 ? 0 : alphaMs * Math.pow(ringBase, ring - 1);
    }

    /** Upper edge of ring {@code ring} in ms (infinite for the outermost ring). */
    public double ringUpperMs(int ring) {
        return ring == rings - 1 ? Double.POSITIVE_INFINITY : alphaMs * Math.pow(ringBase, ring);
    }

    private static void range(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: " + min + ".." + max + ")");
        }
    }

    private static void positive(String name, Duration d) {
        Durations.requirePositive(name, Objects.requireNonNull(d, name));
    }

    /** Mutable builder; every field starts at its default. */
    public static final class Builder {
        private int primaryPerRing = 8;
        private int secondaryPerRing = 8;
        private double ringBase = 1.5;
        private double alphaMs = 1;
        private int rings = 17;
        private double beta = 1;
        private Duration gossipInitialInterval = Duration.ofSeconds(5);
        private Duration gossipInitialPeriod = Duration.ofSeconds(60);
        private Duration gossipInterval = Duration.ofSeconds(30);
        private Duration replacementInterval = Duration.ofSeconds(60);
        private Duration probeTimeout = Duration.ofSeconds(2);
        private double rttSmoothing = 0.3;
        private Duration probeCacheTtl = Duration.ofSeconds(30);
        private int maxHops = 8;
        private int maxProbesPerHop = 64;
        private int gossipProbesPerSecond = 100;
        private int requestProbesPerSecond = 500;
        private Duration queryTimeout = Duration.ofSeconds(20);
        private RingReplacement replacement = RingReplacement.HYPERVOLUME;
        private boolean querySecondaries = true;
        private double boundSlackMs = 1.0;
        private int minMembers = 64;
        private int membersPerIp = 3;
        private int membersPerSite = 4;
        private int datagramsPerSecondPerIp = 200;
        private WireLimits wire = WireLimits.DEFAULT;

        public Builder primaryPerRing(int v) { primaryPerRing = v; return this; }
        public Builder secondaryPerRing(int v) { secondaryPerRing = v; return this; }
        public Builder ringBase(double v) { ringBase = v; return this; }
        public Builder alphaMs(double v) { alphaMs = v; return this; }
        public Builder rings(int v) { rings = v; return this; }
        public Builder beta(double v) { beta = v; return this; }
        public Builder gossipInitialInterval(Duration v) { gossipInitialInterval = v; return this; }
        public Builder gossipInitialPeriod(Duration v) { gossipInitialPeriod = v; return this; }
        public Builder gossipInterval(Duration v) { gossipInterval = v; return this; }
        public Builder replacementInterval(Duration v) { replacementInterval = v; return this; }
        public Builder probeTimeout(Duration v) { probeTimeout = v; return this; }
        public Builder rttSmoothing(double v) { rttSmoothing = v; return this; }
        public Builder probeCacheTtl(Duration v) { probeCacheTtl = v; return this; }
        public Builder maxHops(int v) { maxHops = v; return this; }
        public Builder maxProbesPerHop(int v) { maxProbesPerHop = v; return this; }
        public Builder gossipProbesPerSecond(int v) { gossipProbesPerSecond = v; return this; }
        public Builder requestProbesPerSecond(int v) { requestProbesPerSecond = v; return this; }
        public Builder queryTimeout(Duration v) { queryTimeout = v; return this; }
        public Builder replacement(RingReplacement v) { replacement = v; return this; }
        public Builder querySecondaries(boolean v) { querySecondaries = v; return this; }
        public Builder boundSlackMs(double v) { boundSlackMs = v; return this; }
        public Builder minMembers(int v) { minMembers = v; return this; }
        public Builder membersPerIp(int v) { membersPerIp = v; return this; }
        public Builder membersPerSite(int v) { membersPerSite = v; return this; }
        public Builder datagramsPerSecondPerIp(int v) { datagramsPerSecondPerIp = v; return this; }
        public Builder wire(WireLimits v) { wire = v; return this; }

        public MeridianConfig build() {
            return new MeridianConfig(primaryPerRing, secondaryPerRing, ringBase, alphaMs, rings, beta,
                    gossipInitialInterval, gossipInitialPeriod, gossipInterval, replacementInterval, probeTimeout,
                    rttSmoothing, probeCacheTtl, maxHops, maxProbesPerHop, gossipProbesPerSecond, requestProbesPerSecond, queryTimeout,
                    replacement, querySecondaries, boundSlackMs, minMembers, membersPerIp, membersPerSite,
                    datagramsPerSecondPerIp, wire);
        }
    }
}

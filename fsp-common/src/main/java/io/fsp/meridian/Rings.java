package io.fsp.meridian;

import io.fsp.meridian.wire.RingEntry;
import io.fsp.net.AddressPrefix;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A node's concentric rings (paper 004 §3.1, after Meridian): ring i holds peers whose RTT lies in
 * [α·s^(i−1), α·s^i); ring 0 holds everything below α and the outermost ring everything beyond its
 * inner edge. Each ring keeps at most k primary and l secondary members, and more secondaries while the node has
 * fewer than {@code minMembers} members: a host whose RTTs to most others are one value (a placeholder of a latency
 * matrix, a congested uplink) puts them all in one ring, and k + l of them would be all it knows. Only the owning node's own
 * measurements enter here: there is no way to place a peer by an RTT someone else claims. At most
 * {@code membersPerIp} members share one IP address and {@code membersPerSite} one IPv4 /24 or IPv6 /48
 * ({@link AddressPrefix#site}; not counted on private networks): one host answering probes from many ports, or from
 * many addresses of its network, cannot fill the rings.
 * Not thread-safe: a node touches its rings from one thread only.
 */
public final class Rings {
    /** Consecutive lost probes after which a member is dropped. */
    static final int MAX_MISSED_PROBES = 2;

    private final MeridianConfig config;
    private final Map<InetSocketAddress, RingMember> byPeer = new HashMap<>();
    private final Map<InetAddress, Integer> perIp = new HashMap<>();
    private final Map<InetAddress, Integer> perSite = new HashMap<>();
    private final List<List<RingMember>> rings = new ArrayList<>();

    public Rings(MeridianConfig config) {
        this.config = config;
        for (int i = 0; i < config.rings(); i++) {
            rings.add(new ArrayList<>());
        }
    }

    /** The ring an RTT belongs to. */
    public int ringOf(double rttMs) {
        if (rttMs < config.alphaMs()) {
            return 0;
        }
        int ring = 1 + (int) Math.floor(Math.log(rttMs / config.alphaMs()) / Math.log(config.ringBase()));
        // Guard against rounding at exact ring edges (log of a power of s).
        if (ring < config.rings() - 1 && rttMs >= config.ringUpperMs(ring)) {
            ring++;
        } else if (ring > 1 && ring < config.rings() && rttMs < config.ringLowerMs(ring)) {
            ring--;
        }
        return Math.min(ring, config.rings() - 1);
    }

    /**
     * Records an RTT this node measured to {@code peer}. A known member's RTT falls at once to a lower sample and
     * rises smoothed (EWMA), and the member moves ring if needed; a new peer becomes primary if its ring has room, else secondary
     * (beyond l while the node has fewer than minMembers), else it replaces the longest-serving secondary. Returns true if the peer is a member afterwards.
     */
    public boolean offer(InetSocketAddress peer, double rttMs, long nowNanos) {
        if (!(rttMs >= 0)) {
            return false;
        }
        RingMember known = byPeer.get(peer);
        if (known != null) {
            known.missedProbes(0);
            // Queues and busy peers (a JVM still starting) only ever add to a round trip, so a sample below the estimate
            // is nearer the path's own RTT: taken at once. Smoothed, a 2 ms pair first measured at 140 ms stayed out of
            // the bounds of queries for minutes on the namespace testbed.
            double smoothed = rttMs < known.rttMs() ? rttMs
                    : (1 - config.rttSmoothing()) * known.rttMs() + config.rttSmoothing() * rttMs;
            known.rttMs(smoothed);
            int ring = ringOf(smoothed);
            if (ring != known.ring()) {
                remove(peer);
                return insert(peer, smoothed, nowNanos);
            }
            return true;
        }
        return insert(peer, rttMs, nowNanos);
    }

    private boolean insert(InetSocketAddress peer, double rttMs, long nowNanos) {
        InetAddress site = site(peer);
        if (perIp.getOrDefault(peer.getAddress(), 0) >= config.membersPerIp()
                || (site != null && perSite.getOrDefault(site, 0) >= config.membersPerSite())) {
            return false;
        }
        int ring = ringOf(rttMs);
        List<RingMember> members = rings.get(ring);
        long primaries = members.stream().filter(RingMember::primary).count();
        RingMember member;
        if (primaries < config.primaryPerRing()) {
            member = new RingMember(peer, rttMs, ring, true, nowNanos);
        } else if (members.size() - primaries < config.secondaryPerRing() || byPeer.size() < config.minMembers()) {
            member = new RingMember(peer, rttMs, ring, false, nowNanos);
        } else {
            RingMember oldest = members.stream().filter(m -> !m.primary())
                    .min(Comparator.comparingLong(RingMember::addedNanos)).orElse(null);
            if (oldest == null) {
                return false; // l = 0 and the primaries are full: keep what we have
            }
            remove(oldest.peer());
            member = new RingMember(peer, rttMs, ring, false, nowNanos);
        }
        members.add(member);
        byPeer.put(peer, member);
        perIp.merge(peer.getAddress(), 1, Integer::sum);
        if (site != null) {
            perSite.merge(site, 1, Integer::sum);
        }
        return true;
    }

    /**
     * The site a peer's seats count against; null on a private network ({@link AddressPrefix#privateNetwork}), where
     * a /24 says nothing of who holds the addresses and the Internet cannot answer from them.
     */
    private static InetAddress site(InetSocketAddress peer) {
        return AddressPrefix.privateNetwork(peer.getAddress()) ? null : AddressPrefix.site(peer.getAddress());
    }

    /** Counts a lost probe to a member; drops it after {@value #MAX_MISSED_PROBES} in a row. */
    public boolean probeLost(InetSocketAddress peer) {
        RingMember m = byPeer.get(peer);
        if (m == null) {
            return false;
        }
        m.missedProbes(m.missedProbes() + 1);
        if (m.missedProbes() >= MAX_MISSED_PROBES) {
            remove(peer);
            return true;
        }
        return false;
    }

    /** Removes a member; a secondary of the same ring is promoted into a freed primary seat. */
    public void remove(InetSocketAddress peer) {
        RingMember m = byPeer.remove(peer);
        if (m == null) {
            return;
        }
        perIp.computeIfPresent(peer.getAddress(), (ip, n) -> n == 1 ? null : n - 1);
        InetAddress site = site(peer);
        if (site != null) {
            perSite.computeIfPresent(site, (s, n) -> n == 1 ? null : n - 1);
        }
        List<RingMember> members = rings.get(m.ring());
        members.remove(m);
        if (m.primary()) {
            members.stream().filter(x -> !x.primary())
                    .min(Comparator.comparingLong(RingMember::addedNanos))
                    .ifPresent(x -> x.primary(true));
        }
    }

    /** Makes exactly {@code primaries} (members of {@code ring}) primary, the rest secondary. */
    public void choosePrimaries(int ring, Set<InetSocketAddress> primaries) {
        for (RingMember m : rings.get(ring)) {
            m.primary(primaries.contains(m.peer()));
        }
    }

    public RingMember member(InetSocketAddress peer) {
        return byPeer.get(peer);
    }

    public boolean contains(InetSocketAddress peer) {
        return byPeer.containsKey(peer);
    }

    /** Members of one ring, primaries first. */
    public List<RingMember> ring(int ring) {
        List<RingMember> list = new ArrayList<>(rings.get(ring));
        list.sort(Comparator.comparing((RingMember m) -> !m.primary()).thenComparingLong(RingMember::addedNanos));
        return list;
    }

    public Collection<RingMember> members() {
        return byPeer.values();
    }

    public int size() {
        return byPeer.size();
    }

    public int ringCount() {
        return rings.size();
    }

    /** Every member, ring by ring, as an immutable snapshot. */
    public List<RingEntry> snapshot() {
        List<RingEntry> out = new ArrayList<>();
        for (int r = 0; r < rings.size(); r++) {
            ring(r).forEach(m -> out.add(m.toEntry()));
        }
        return out;
    }
}

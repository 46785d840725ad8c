package io.fsp.meridian;

import io.fsp.meridian.wire.RingEntry;
import java.net.InetSocketAddress;

/** A peer placed in one of a node's rings by the node's own RTT measurements. */
public final class RingMember {
    private final InetSocketAddress peer;
    private final long addedNanos;
    private double rttMs;
    private int ring;
    private boolean primary;
    private int missedProbes;

    RingMember(InetSocketAddress peer, double rttMs, int ring, boolean primary, long addedNanos) {
        this.peer = peer;
        this.rttMs = rttMs;
        this.ring = ring;
        this.primary = primary;
        this.addedNanos = addedNanos;
    }

    public InetSocketAddress peer() {
        return peer;
    }

    /** Smoothed RTT in milliseconds. */
    public double rttMs() {
        return rttMs;
    }

    public int ring() {
        return ring;
    }

    public boolean primary() {
        return primary;
    }

    long addedNanos() {
        return addedNanos;
    }

    void rttMs(double v) {
        rttMs = v;
    }

    void ring(int v) {
        ring = v;
    }

    void primary(boolean v) {
        primary = v;
    }

    int missedProbes() {
        return missedProbes;
    }

    void missedProbes(int v) {
        missedProbes = v;
    }

    RingEntry toEntry() {
        return new RingEntry(ring, primary, peer, rttMs);
    }

    @Override
    public String toString() {
        return peer + " ring " + ring + (primary ? " primary " : " secondary ") + String.format("%.3f ms", rttMs);
    }
}

package io.fsp.meridian.wire;

import java.net.InetSocketAddress;
import java.util.Objects;

/** What a node knows about one ring member: ring index, primary or secondary, smoothed RTT. */
public record RingEntry(int ring, boolean primary, InetSocketAddress peer, double rttMs) {
    public RingEntry {
        Objects.requireNonNull(peer, "peer");
        if (ring < 0 || ring > 255) {
            throw new IllegalArgumentException("ring: " + ring + " (expected: 0..255)");
        }
    }
}

package io.fsp.meridian.wire;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;

/** A node found by a query and the RTTs it measured to each target, in constraint order. */
public record QueryHit(InetSocketAddress node, List<Double> rttMs) {
    public QueryHit {
        Objects.requireNonNull(node, "node");
        rttMs = List.copyOf(rttMs);
    }
}

package io.fsp.meridian;

import io.fsp.meridian.wire.QueryHit;
import java.util.List;

/**
 * The answer to a query: the nodes found (for a closest-node query, the single closest node seen),
 * how many nodes processed the query and how many RTT probes it cost in total.
 */
public record QueryResult(List<QueryHit> hits, int hops, int probes) {
    public QueryResult {
        hits = List.copyOf(hits);
    }
}

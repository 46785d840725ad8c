package io.fsp.meridian.wire;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The closed set of Meridian messages; each is one datagram (docs/protocol.md §4). The requests
 * ({@link #isRequest}) travel with the sender's return-address cookie ({@link MeridianCodec.Datagram}).
 */
public sealed interface MeridianMessage {

    /**
     * Whether answering this message makes a node send more than its own size back or to others: such a message is
     * handled only with a valid cookie for its source address (docs/protocol.md §4.3, "Return address").
     */
    static boolean isRequest(MeridianMessage m) {
        return m instanceof Gossip || m instanceof MeasureRequest || m instanceof Query || m instanceof RingsRequest
                || m instanceof ServiceRequest;
    }

    /** RTT probe; answered at once with a {@link Pong} carrying the same nonce. */
    record Ping(long nonce) implements MeridianMessage { }

    /** Answer to a {@link Ping}. */
    record Pong(long nonce) implements MeridianMessage { }

    /**
     * Peers the sender knows (one per ring). Carries addresses only, never RTTs: a receiver places a
     * peer only after probing it itself.
     */
    record Gossip(List<InetSocketAddress> peers) implements MeridianMessage {
        public Gossip {
            peers = List.copyOf(peers);
        }
    }

    /** Asks a ring member to probe each target and report the RTTs. */
    record MeasureRequest(long requestId, List<InetSocketAddress> targets) implements MeridianMessage {
        public MeasureRequest {
            targets = List.copyOf(targets);
        }
    }

    /**
     * RTTs to the requested targets in request order; a negative value means unreachable.
     * {@code probesSent} counts the probes the answer cost (cached measurements cost none).
     */
    record MeasureReply(long requestId, List<Double> rttMs, int probesSent) implements MeridianMessage {
        public MeasureReply {
            rttMs = List.copyOf(rttMs);
        }
    }

    /** Which question a query asks. */
    enum QueryKind {
        /** The single node closest to one target. */
        CLOSEST,
        /** Nodes within the distance constraint of every target (paper 004 §3.1). */
        MULTI_CONSTRAINT
    }

    /**
     * A query on its way through the overlay. {@code hopsTaken} and {@code probes} accumulate;
     * {@code hits} carries the results found so far (for CLOSEST: the best node so far).
     */
    record Query(long queryId, QueryKind kind, int hopsTaken, int hopLimit, int wanted, int probes,
                 InetSocketAddress origin, List<Constraint> constraints, List<QueryHit> hits)
            implements MeridianMessage {
        public Query {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(origin, "origin");
            constraints = List.copyOf(constraints);
            hits = List.copyOf(hits);
        }
    }

    /** The final answer, sent by the last node of the path to the query's origin. */
    record QueryReply(long queryId, int hops, int probes, List<QueryHit> hits) implements MeridianMessage {
        public QueryReply {
            hits = List.copyOf(hits);
        }
    }

    /** Asks a node what it knows (used by {@code fsp nodes}). */
    record RingsRequest(long requestId) implements MeridianMessage { }

    /** A node's ring members with their smoothed RTTs as measured by that node. */
    record RingsReply(long requestId, List<RingEntry> entries) implements MeridianMessage {
        public RingsReply {
            entries = List.copyOf(entries);
        }
    }

    /** Asks a node which block service it offers (a relay's port and certificate fingerprint). */
    record ServiceRequest(long requestId) implements MeridianMessage { }

    /**
     * The answer to a request without a valid cookie: the value the sender must send its requests to this node with.
     * Never larger than the request it answers.
     */
    record Cookie(long cookie) implements MeridianMessage { }

    /** The node's block service, or empty if it offers none. */
    record ServiceReply(long requestId, Optional<ServiceInfo> service) implements MeridianMessage {
        public ServiceReply {
            Objects.requireNonNull(service, "service");
        }
    }
}

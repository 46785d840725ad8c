package io.fsp.meridian;

import io.fsp.meridian.MeridianScheduler.Cancellable;
import io.fsp.meridian.wire.MeridianMessage.MeasureReply;
import io.fsp.meridian.wire.MeridianMessage.MeasureRequest;
import io.fsp.meridian.wire.MeridianMessage.Ping;
import io.fsp.meridian.wire.MeridianMessage.Pong;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.DoubleConsumer;

/**
 * A Meridian node's RTT measurements: its own probes (one in flight per peer at most, recent samples reused within
 * {@code probeCacheTtl}, a lost probe counted against a ring member), the measurements it asks members for
 * ({@code MEASURE_REQUEST}), and those it makes when asked. Called on the scheduler's thread only.
 */
final class Probes {
    /** Own measurements kept for reuse within {@code probeCacheTtl}. */
    private static final int PROBE_CACHE = 1024;

    /** One RTT measured, and when. */
    record Sample(double rttMs, long atNanos) { }

    private final NodeContext node;
    private final ProbeBudget requestBudget;
    private final Map<InetSocketAddress, InFlightProbe> probesByPeer = new HashMap<>();
    private final Map<Long, InFlightProbe> probesByNonce = new HashMap<>();
    private final Map<InetSocketAddress, Sample> recent = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<InetSocketAddress, Sample> eldest) {
            return size() > PROBE_CACHE;
        }
    };
    private final Map<Long, PendingMeasure> measures = new HashMap<>();
    private long probesSent;

    Probes(NodeContext node) {
        this.node = node;
        this.requestBudget = new ProbeBudget(node.config().requestProbesPerSecond(), node.scheduler().nanoTime());
    }

    /** RTT probes sent since the node started (all causes). */
    long probesSent() {
        return probesSent;
    }

    /** A measurement of {@code peer} younger than the cache TTL, or null. */
    Sample fresh(InetSocketAddress peer, long now) {
        Sample s = recent.get(peer);
        return s != null && now - s.atNanos <= node.config().probeCacheTtl().toNanos() ? s : null;
    }

    /** Whether a probe to {@code peer} is out. */
    boolean inFlight(InetSocketAddress peer) {
        return probesByPeer.containsKey(peer);
    }

    private final class InFlightProbe {
        final InetSocketAddress peer;
        final long nonce;
        final long sentNanos;
        final List<DoubleConsumer> waiters = new ArrayList<>(2);
        Cancellable timeout;

        InFlightProbe(InetSocketAddress peer, long nonce, long sentNanos) {
            this.peer = peer;
            this.nonce = nonce;
            this.sentNanos = sentNanos;
        }

        void finish(double rttMs) {
            probesByPeer.remove(peer);
            probesByNonce.remove(nonce);
            for (DoubleConsumer w : waiters) {
                w.accept(rttMs);
            }
        }
    }

    /**
     * Measures the RTT to {@code peer}, reusing a measurement younger than the cache TTL when
     * {@code cached} and joining a probe already in flight: one peer never has two probes out at once.
     * {@code done} gets the RTT in ms or −1 on timeout. Returns true if a probe was actually sent.
     */
    boolean measure(InetSocketAddress peer, boolean cached, DoubleConsumer done) {
        return measure(peer, cached, null, done);
    }

    /** As above; a probe that {@code budget} (if any) has no token for is not sent and reports −1. */
    boolean measure(InetSocketAddress peer, boolean cached, ProbeBudget budget, DoubleConsumer done) {
        long now = node.scheduler().nanoTime();
        if (cached) {
            Sample s = fresh(peer, now);
            if (s != null) {
                done.accept(s.rttMs);
                return false;
            }
        }
        InFlightProbe inFlight = probesByPeer.get(peer);
        if (inFlight != null) {
            inFlight.waiters.add(done);
            return false;
        }
        if (budget != null && !budget.take(now)) {
            done.accept(-1);
            return false;
        }
        long nonce = node.random().nextLong();
        InFlightProbe probe = new InFlightProbe(peer, nonce, now);
        probe.waiters.add(done);
        probesByPeer.put(peer, probe);
        probesByNonce.put(nonce, probe);
        probe.timeout = node.scheduler().schedule(node.config().probeTimeout().toNanos(), () -> {
            if (probesByNonce.get(nonce) == probe) {
                if (node.rings().contains(peer)) {
                    node.rings().probeLost(peer);
                }
                probe.finish(-1);
            }
        });
        probesSent++;
        node.transport().send(peer, new Ping(nonce));
        return true;
    }

    void onPong(InetSocketAddress from, Pong pong) {
        InFlightProbe probe = probesByNonce.get(pong.nonce());
        if (probe == null || !probe.peer.equals(from)) {
            return; // unsolicited or from someone we did not probe: never counts as a measurement
        }
        probe.timeout.cancel();
        long now = node.scheduler().nanoTime();
        double rtt = (now - probe.sentNanos) / 1e6;
        recent.put(from, new Sample(rtt, now));
        if (node.rings().contains(from)) {
            node.rings().offer(from, rtt, now);
        }
        probe.finish(rtt);
    }

    /**
     * Measures every target (cached where fresh) on behalf of a query or a measure request, within the
     * request probe budget; {@code done} gets the RTTs and the probes sent.
     */
    void measureAll(List<InetSocketAddress> targets, BiConsumer<double[], Integer> done) {
        double[] rtts = new double[targets.size()];
        int[] left = {targets.size()};
        int[] sent = {0};
        boolean[] finished = {false};
        if (targets.isEmpty()) {
            done.accept(rtts, 0);
            return;
        }
        for (int i = 0; i < targets.size(); i++) {
            int index = i;
            InetSocketAddress target = targets.get(i);
            DoubleConsumer onRtt = rtt -> {
                rtts[index] = rtt;
                if (--left[0] == 0 && !finished[0]) {
                    finished[0] = true;
                    done.accept(rtts, sent[0]);
                }
            };
            if (target.equals(node.self())) {
                onRtt.accept(0);
            } else if (measure(target, true, requestBudget, onRtt)) {
                sent[0]++;
            }
        }
    }

    private final class PendingMeasure {
        final InetSocketAddress member;
        final BiConsumer<double[], Integer> callback;
        final int targets;
        Cancellable timeout;

        PendingMeasure(InetSocketAddress member, int targets, BiConsumer<double[], Integer> callback) {
            this.member = member;
            this.targets = targets;
            this.callback = callback;
        }

        void done(MeasureReply reply) {
            if (reply.rttMs().size() != targets) {
                callback.accept(null, 0);
                return;
            }
            double[] rtts = new double[targets];
            for (int i = 0; i < targets; i++) {
                rtts[i] = reply.rttMs().get(i);
            }
            // A member cannot have spent more probes than targets on our request.
            callback.accept(rtts, Math.min(reply.probesSent(), targets));
        }
    }

    /** Asks {@code member} to measure {@code targets}; {@code done} gets null on timeout. */
    void measureVia(InetSocketAddress member, List<InetSocketAddress> targets, BiConsumer<double[], Integer> done) {
        long id = node.random().nextLong();
        PendingMeasure pending = new PendingMeasure(member, targets.size(), done);
        measures.put(id, pending);
        // The member's own probes may take a full probe timeout, so wait for two.
        pending.timeout = node.scheduler().schedule(2 * node.config().probeTimeout().toNanos(), () -> {
            if (measures.remove(id) == pending) {
                done.accept(null, 0);
            }
        });
        node.transport().send(member, new MeasureRequest(id, targets));
    }

    void onMeasureRequest(InetSocketAddress from, MeasureRequest request) {
        if (request.targets().size() > node.config().wire().maxTargets()) {
            return;
        }
        measureAll(request.targets(), (rtts, sent) -> {
            List<Double> list = new ArrayList<>(rtts.length);
            for (double r : rtts) {
                list.add(r);
            }
            node.transport().send(from, new MeasureReply(request.requestId(), list, sent));
        });
    }

    /** A {@code MEASURE_REPLY}: taken only from the member asked. */
    void onMeasureReply(InetSocketAddress from, MeasureReply m) {
        PendingMeasure pending = measures.get(m.requestId());
        if (pending != null && pending.member.equals(from)) {
            measures.remove(m.requestId());
            pending.timeout.cancel();
            pending.done(m);
        }
    }
}

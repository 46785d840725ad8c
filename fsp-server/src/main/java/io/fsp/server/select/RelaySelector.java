package io.fsp.server.select;

import io.fsp.meridian.MultiConstraintQuery;
import io.fsp.meridian.net.MeridianService;
import io.fsp.meridian.wire.Constraint;
import io.fsp.meridian.wire.QueryHit;
import io.fsp.meridian.wire.ServiceInfo;
import io.fsp.tls.Fingerprint;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses relays for a transfer: asks an entry node of the Meridian overlay for nodes within
 * {@code nearSenderMs} of the server and {@code nearClientMs} of the client (MCQ, paper 004 §3.1), asks
 * each hit for its block service (port and certificate fingerprint), keeps the ones the trust policy
 * accepts, and fills up from the static list when the overlay yields too few.
 *
 * <p>Trust: what a node says about its service is only a claim carried over the overlay. A hit is used
 * only if its fingerprint is one the operator trusts (a static relay's or an explicitly trusted one),
 * unless {@code trustOverlayRelays} is on. Either way the server connects only to the IP address the
 * query returned, pins the claimed fingerprint, sends only encrypted, checksummed blocks, and the
 * client verifies every block's digest (docs/protocol.md §4.5).
 *
 * <pre>{@code
 * RelaySelector selector = new RelaySelector(asker, asker.address(), () -> staticRelays, Set::of, false, Duration.ofSeconds(5));
 * RelayChoice choice = selector.select(entry, 30, clientProbe, 80, 3).join();
 * }</pre>
 */
public final class RelaySelector {
    private static final Logger log = LoggerFactory.getLogger(RelaySelector.class);

    private final MeridianService asker;
    private final InetSocketAddress senderProbe;
    private final Supplier<List<RelayEndpoint>> staticRelays;
    private final Supplier<Set<Fingerprint>> trustedFingerprints;
    private final boolean trustOverlayRelays;
    private final Duration timeout;

    /**
     * @param asker the server's Meridian endpoint (member or client) that sends queries
     * @param senderProbe where overlay nodes measure their distance to the server (usually {@code asker.address()})
     * @param staticRelays the configured relays, asked at each selection (the list is reloaded while the server
     *     runs); their fingerprints are trusted, and they fill up a short answer
     * @param trustedFingerprints further relay fingerprints the operator trusts when the overlay names them (read at
     *     every selection: a configuration reload changes them)
     * @param trustOverlayRelays accept any fingerprint an overlay node claims (opt-in)
     * @param timeout how long a selection may take before the static list is used
     */
    public RelaySelector(MeridianService asker, InetSocketAddress senderProbe, Supplier<List<RelayEndpoint>> staticRelays,
                         Supplier<Set<Fingerprint>> trustedFingerprints, boolean trustOverlayRelays, Duration timeout) {
        this.asker = Objects.requireNonNull(asker, "asker");
        this.senderProbe = Objects.requireNonNull(senderProbe, "senderProbe");
        this.staticRelays = Objects.requireNonNull(staticRelays, "staticRelays");
        this.trustedFingerprints = trustedFingerprints;
        this.trustOverlayRelays = trustOverlayRelays;
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * Up to {@code wanted} relays within {@code nearSenderMs} of the server and {@code nearClientMs} of
     * {@code clientProbe}, asked through {@code entry}; never fails (a failed query means the static list).
     */
    public CompletableFuture<RelayChoice> select(InetSocketAddress entry, double nearSenderMs,
                                                 InetSocketAddress clientProbe, double nearClientMs, int wanted) {
        MultiConstraintQuery query = new MultiConstraintQuery(List.of(
                new Constraint(senderProbe, nearSenderMs), new Constraint(clientProbe, nearClientMs)), wanted);
        List<RelayEndpoint> listed = staticRelays.get();
        Set<Fingerprint> trusted = new HashSet<>(trustedFingerprints.get());
        listed.forEach(r -> trusted.add(r.fingerprint()));
        return asker.query(entry, query)
                // No more than were asked for: the hits are what overlay nodes say, and each costs a SERVICE_REQUEST.
                .thenCompose(result -> services(result.hits().subList(0, Math.min(wanted, result.hits().size())), trusted))
                .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .handle((found, error) -> {
                    if (error != null) {
                        log.warn("relay selection through {} failed, using the static list: {}", entry, error.toString());
                        return fill(List.of(), listed, wanted, "overlay query failed: " + error);
                    }
                    return fill(found, listed, wanted, found.size() < wanted
                            ? "overlay gave " + found.size() + " usable relay(s) of " + wanted : "");
                });
    }

    /** Asks every hit for its block service at once; keeps those that offer one the policy accepts. */
    private CompletableFuture<List<RelayEndpoint>> services(List<QueryHit> hits, Set<Fingerprint> trusted) {
        List<CompletableFuture<Optional<RelayEndpoint>>> asks = new ArrayList<>();
        for (QueryHit hit : hits) {
            asks.add(asker.service(hit.node())
                    .handle((info, error) -> error != null || info.isEmpty() ? Optional.<RelayEndpoint>empty()
                            : accept(hit.node(), info.get(), trusted)));
        }
        return CompletableFuture.allOf(asks.toArray(CompletableFuture[]::new))
                .thenApply(v -> asks.stream().map(CompletableFuture::join).flatMap(Optional::stream).toList());
    }

    private Optional<RelayEndpoint> accept(InetSocketAddress node, ServiceInfo info, Set<Fingerprint> trusted) {
        if (!trustOverlayRelays && !trusted.contains(info.fingerprint())) {
            log.info("overlay relay {} left out: fingerprint {} is not trusted (--trust-relay, or --trust-overlay-relays)",
                    node, info.fingerprint());
            return Optional.empty();
        }
        // The IP the query found, never another one the node might name: only the port is the node's claim.
        return Optional.of(new RelayEndpoint(node.getAddress().getHostAddress(), info.blockPort(), info.fingerprint()));
    }

    private static RelayChoice fill(List<RelayEndpoint> fromOverlay, List<RelayEndpoint> staticRelays, int wanted,
                                    String note) {
        LinkedHashSet<RelayEndpoint> chosen = new LinkedHashSet<>(fromOverlay.subList(0, Math.min(wanted, fromOverlay.size())));
        Set<Fingerprint> taken = new HashSet<>();
        chosen.forEach(r -> taken.add(r.fingerprint()));
        for (RelayEndpoint r : staticRelays) {
            if (chosen.size() >= wanted) {
                break;
            }
            if (taken.add(r.fingerprint())) {
                chosen.add(r);
            }
        }
        int overlay = Math.min(wanted, fromOverlay.size());
        return new RelayChoice(new ArrayList<>(chosen), overlay, note);
    }
}

package io.fsp.server.select;

import io.fsp.extension.Announcement;
import io.fsp.net.HostPort;
import io.fsp.tls.Fingerprint;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The relays FCOL may collect from (docs/protocol.md §1, "FCOL"): those the server's operator named, never those a
 * stream names alone. A RELAY line is allowed when its host is a literal IP address and its address and port are
 * those of a {@code relay} or {@code collect-relay} line, with that line's fingerprint, or, for a
 * {@code collect-relay} line without one, a fingerprint the server trusts ({@code relay}, {@code collect-relay},
 * {@code trust-relay}). A trusted fingerprint alone allows no address: fingerprints are public, and the connection
 * is made before the certificate is seen.
 */
public final class CollectRelays {
    private final List<RelayEndpoint> relays;
    private final List<CollectRelay> allowed;
    private final Set<Fingerprint> trusted = new HashSet<>();
    /** The relay lines' addresses, resolved when this is made (off the event loop), not per RELAY line. */
    private final java.util.Map<RelayEndpoint, Set<InetAddress>> addresses = new java.util.HashMap<>();

    /**
     * @param relays  the server's {@code relay} lines (their names, the operator's, are resolved here, once: make this
     *                off the event loop)
     * @param allowed its {@code collect-relay} lines
     * @param trusted its {@code trust-relay} fingerprints
     */
    public CollectRelays(List<RelayEndpoint> relays, List<CollectRelay> allowed, Set<Fingerprint> trusted) {
        this.relays = List.copyOf(relays);
        relays.forEach(r -> addresses.put(r, addresses(r.host())));
        this.allowed = List.copyOf(allowed);
        this.trusted.addAll(trusted);
        relays.forEach(r -> this.trusted.add(r.fingerprint()));
        allowed.forEach(r -> r.fingerprint().ifPresent(this.trusted::add));
    }

    /** Why FCOL may not collect from {@code relay}; empty if it may. Nothing is connected, no name resolved. */
    public Optional<String> refusal(Announcement.Relay relay) {
        String named = "relay " + relay.index() + " " + new HostPort(relay.host(), relay.port());
        InetAddress ip = HostPort.literal(relay.host()).orElse(null);
        if (ip == null) {
            return Optional.of(named + ": not a literal IP address (this server resolves no name a stream gives)");
        }
        for (RelayEndpoint r : relays) {
            if (r.port() == relay.port() && addresses.get(r).contains(ip)) {
                return r.fingerprint().equals(relay.fingerprint()) ? Optional.empty()
                        : Optional.of(named + ": certificate " + relay.fingerprint() + " is not the one of this server's"
                        + " relay line there (" + r.fingerprint() + ")");
            }
        }
        for (CollectRelay r : allowed) {
            if (r.port() == relay.port() && r.address().equals(ip)) {
                if (r.fingerprint().isPresent() ? r.fingerprint().get().equals(relay.fingerprint())
                        : trusted.contains(relay.fingerprint())) {
                    return Optional.empty();
                }
                return Optional.of(named + ": certificate " + relay.fingerprint() + " is not " + (r.fingerprint().isPresent()
                        ? "the one of this server's collect-relay line there" : "one this server trusts (trust-relay)"));
            }
        }
        return Optional.of(named + ": not a relay this server may collect from (expected: one of its relay or"
                + " collect-relay lines)");
    }

    /** The addresses of a configured relay host: a literal as it is, a name as the operator's resolver gives it. */
    private static Set<InetAddress> addresses(String host) {
        InetAddress literal = HostPort.literal(host).orElse(null);
        if (literal != null) {
            return Set.of(literal);
        }
        try {
            return new HashSet<>(Arrays.asList(InetAddress.getAllByName(host)));
        } catch (UnknownHostException e) {
            return Set.of();
        }
    }
}

package io.fsp.relay.net;

import io.fsp.relaylink.wire.ClearLink;
import io.fsp.relaylink.wire.RelayRole;
import io.fsp.tls.Fingerprint;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TransferId;
import io.netty.channel.Channel;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The clear links granted and not yet taken (docs/protocol.md §3.7): a ticket is good for one link, within the
 * relay's authentication timeout of its grant, and the link it opens acts for its TLS connection: the same role,
 * server and tokens, and it closes with it. The two are idle only together: a server pushing a long transfer says
 * nothing on TLS, a client fetching nothing more may still confirm.
 */
final class ClearLinks {
    /** What a clear link inherits from the TLS connection that asked for it. */
    record Grant(RelayRole role, Fingerprint server, Map<TransferId, CapabilityToken> tokens, byte[] secret,
                 Channel parent, AtomicLong activity) {
    }

    private final Map<String, Grant> open = new ConcurrentHashMap<>();
    private final Duration validFor;

    ClearLinks(Duration validFor) {
        this.validFor = validFor;
    }

    /** Grants a link to {@code parent}'s peer: returns its ticket; the grant lapses if not taken in time. */
    byte[] grant(RelayRole role, Fingerprint server, Map<TransferId, CapabilityToken> tokens, byte[] secret,
                 Channel parent, AtomicLong activity) {
        byte[] ticket = ClearLink.random(ClearLink.TICKET_LENGTH);
        String key = HexFormat.of().formatHex(ticket);
        open.put(key, new Grant(role, server, tokens, secret.clone(), parent, activity));
        parent.eventLoop().schedule(() -> open.remove(key), validFor.toMillis(), TimeUnit.MILLISECONDS);
        parent.closeFuture().addListener(f -> open.remove(key));
        return ticket;
    }

    /** The grant of {@code ticket}, taken: a ticket opens one link. */
    Grant take(byte[] ticket) {
        return open.remove(HexFormat.of().formatHex(ticket));
    }

    /** Grants not yet taken (for tests and metrics). */
    int pending() {
        return open.size();
    }
}

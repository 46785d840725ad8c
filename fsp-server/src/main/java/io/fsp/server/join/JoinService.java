package io.fsp.server.join;

import io.fsp.join.InviteCode;
import io.fsp.join.JoinExchange;
import io.fsp.net.HostPort;
import io.fsp.server.select.RelayEndpoint;
import io.fsp.tls.Fingerprint;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's side of a join (docs/protocol.md, "JOIN"), in two steps a connection takes in turn: {@link #begin}
 * checks the invite and answers the relay's J-PAKE round 1 with the server's rounds 1 and 2; {@link #finish} takes
 * the relay's round 2 and confirmation MAC and, when the code matched, uses the invite, adds the relay to {@code
 * joined-relays} and has the running server apply it. A wrong code counts against the invite; every refusal changes
 * nothing else. Starts are limited per address. Each step does modular exponentiations: run it off the event loop.
 */
public final class JoinService {
    private static final Logger log = LoggerFactory.getLogger(JoinService.class);
    /** Exchanges one address may start per minute. */
    static final int STARTS_PER_MINUTE = 6;

    private final Invites invites;
    private final JoinedRelays joined;
    private final Fingerprint server;
    private final Runnable relaysChanged;
    private final Clock clock;
    private final AddressRate starts = new AddressRate(STARTS_PER_MINUTE, Duration.ofMinutes(1));

    /**
     * @param server the fingerprint of the certificate the server presents on the control channel
     * @param relaysChanged applies {@code joined-relays} to the running server
     */
    public JoinService(java.nio.file.Path stateDir, Fingerprint server, Runnable relaysChanged, Clock clock) {
        this.invites = new Invites(stateDir);
        this.joined = new JoinedRelays(stateDir);
        this.server = server;
        this.relaysChanged = relaysChanged;
        this.clock = clock;
    }

    public JoinedRelays joined() {
        return joined;
    }

    /** An exchange between its two steps. */
    public record Pending(String inviteId, JoinExchange exchange) {
    }

    /**
     * A step's outcome: {@code refused} (with {@code syntax} when the request was not well formed) or not; the
     * reply's text; after {@link #begin}, the exchange to finish.
     */
    public record Step(boolean refused, boolean syntax, String text, Optional<Pending> pending) {
        static Step refuse(String text) {
            return new Step(true, false, text, Optional.empty());
        }

        static Step badSyntax(String text) {
            return new Step(true, true, text, Optional.empty());
        }
    }

    /** Step 1: {@code JOIN <invite-id> <relay-round1>}. */
    public Step begin(String inviteId, String relayRound1, InetSocketAddress peer) {
        if (!InviteCode.isId(inviteId)) {
            return Step.badSyntax("JOIN " + inviteId + ": not an invite id (expected 4 letters A-Z, digits 2-7: the"
                    + " first group of the code)");
        }
        if (!starts.allow(peer.getAddress(), clock.instant())) {
            log.warn("join from {}: refused, more than {} attempts a minute from that address", HostPort.format(peer),
                    STARTS_PER_MINUTE);
            return Step.refuse("JOIN refused: too many attempts from your address; try again in a minute");
        }
        try {
            Optional<Invite> invite = invites.find(inviteId);
            if (invite.isEmpty()) {
                log.warn("join from {}: refused, no invite {}", HostPort.format(peer), inviteId);
                return Step.refuse("JOIN refused: no invite " + inviteId + " (check the code, or ask for a new one)");
            }
            if (!Invites.usable(invite.get(), clock.instant())) {
                String status = invite.get().status(clock.instant());
                log.warn("join from {}: refused, invite {} is {}", HostPort.format(peer), inviteId, status);
                return Step.refuse("JOIN refused: invite " + inviteId + " is " + status + "; ask for a new one");
            }
            JoinExchange exchange = new JoinExchange(JoinExchange.Role.SERVER, invite.get().verifier());
            exchange.peerRound1(relayRound1);
            String reply = exchange.round1() + " " + exchange.round2();
            return new Step(false, false, reply, Optional.of(new Pending(inviteId, exchange)));
        } catch (JoinExchange.JoinRefused e) {
            log.warn("join from {}: refused, invite {}: {}", HostPort.format(peer), inviteId, e.getMessage());
            return Step.badSyntax("JOIN refused: " + e.getMessage());
        } catch (IOException e) {
            log.error("join from {}: cannot read the invites: {}", HostPort.format(peer), e.toString());
            return Step.refuse("JOIN refused: the server cannot read its invites; try again later");
        }
    }

    /**
     * Step 2: {@code JOIN <relay-round2> <relay-fingerprint> <address> <mac>}; {@code address} is {@code HOST:PORT}
     * or {@code PORT} (then the host is the connection's source address).
     */
    public Step finish(Pending pending, String relayRound2, String relayFingerprint, String address, String mac,
                       InetSocketAddress peer) {
        String id = pending.inviteId();
        RelayEndpoint relay;
        try {
            Fingerprint fp = Fingerprint.parse(relayFingerprint);
            HostPort at = !address.isEmpty() && address.length() <= 5 && address.chars().allMatch(c -> c >= '0' && c <= '9')
                    ? new HostPort(peer.getAddress().getHostAddress(), Integer.parseInt(address)) : HostPort.parse(address);
            relay = new RelayEndpoint(at.host(), at.port(), fp);
        } catch (IllegalArgumentException e) {
            return Step.badSyntax("JOIN: " + e.getMessage());
        }
        JoinExchange.Binding binding = new JoinExchange.Binding(id, server.toString(), relay.fingerprint().toString(),
                address);
        try {
            boolean matches;
            try {
                pending.exchange().peerRound2(relayRound2);
                matches = pending.exchange().peerMacMatches(binding, mac);
            } catch (JoinExchange.JoinRefused e) {
                matches = false;
            }
            if (!matches) {
                Invite after = invites.wrongCode(id).orElseThrow();
                log.warn("join from {}: refused, wrong code for invite {} ({} of {} wrong codes{})", HostPort.format(peer),
                        id, after.wrong(), Invites.MAX_WRONG, after.state() == Invite.State.BURNT ? ", invite burnt" : "");
                return Step.refuse("JOIN refused: the code does not match invite " + id
                        + (after.state() == Invite.State.BURNT ? "; the invite is burnt, ask for a new one"
                        : " (" + (Invites.MAX_WRONG - after.wrong()) + " tries left)"));
            }
            if (!invites.use(id, clock.instant())) {
                String status = invites.find(id).map(i -> i.status(clock.instant())).orElse("gone");
                log.warn("join from {}: refused, invite {} is {}", HostPort.format(peer), id, status);
                return Step.refuse("JOIN refused: invite " + id + " is " + status + "; ask for a new one");
            }
            joined.add(relay);
        } catch (IOException e) {
            log.error("join from {}: invite {}: cannot write the state directory: {}", HostPort.format(peer), id,
                    e.toString());
            return Step.refuse("JOIN refused: the server cannot write its state; nothing changed");
        }
        relaysChanged.run();
        log.info("join from {}: invite {} used, relay {} added", HostPort.format(peer), id, relay);
        return new Step(false, false, pending.exchange().mac(binding) + " " + relay.hostPort(), Optional.empty());
    }
}

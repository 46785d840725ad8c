package io.fsp.server.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.join.InviteCode;
import io.fsp.join.JoinExchange;
import io.fsp.server.select.RelayEndpoint;
import io.fsp.tls.Fingerprint;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server's side of JOIN against a relay's side run here: what is refused, what changes, what does not. */
class JoinServiceTest {
    private static final Fingerprint SERVER = Fingerprint.parse("AA:" + "00:".repeat(30) + "BB");
    private static final Fingerprint RELAY = Fingerprint.parse("CC:" + "11:".repeat(30) + "DD");
    private static final Instant NOW = Instant.parse("2026-12-06T08:00:00Z");

    @TempDir
    Path state;

    private final AtomicInteger applied = new AtomicInteger();
    private int address = 1;

    private JoinService service(Instant now) {
        return new JoinService(state, SERVER, applied::incrementAndGet, Clock.fixed(now, ZoneOffset.UTC));
    }

    /** A join as a relay runs it, from its own address; returns the last step. */
    private JoinService.Step join(JoinService service, InviteCode typed, Fingerprint serverSeen) {
        InetSocketAddress peer = new InetSocketAddress("10.0.0." + address++, 40000);
        JoinExchange relay = new JoinExchange(JoinExchange.Role.RELAY, typed.verifier());
        JoinService.Step first = service.begin(typed.id(), relay.round1(), peer);
        if (first.refused()) {
            return first;
        }
        String[] rounds = first.text().split(" ");
        try {
            relay.peerRound1(rounds[0]);
            relay.peerRound2(rounds[1]);
        } catch (JoinExchange.JoinRefused e) {
            throw new AssertionError(e);
        }
        JoinExchange.Binding binding = new JoinExchange.Binding(typed.id(), serverSeen.toString(), RELAY.toString(),
                "relay.example:7001");
        JoinService.Step last = service.finish(first.pending().orElseThrow(), relay.round2(), RELAY.toString(),
                "relay.example:7001", relay.mac(binding), peer);
        if (!last.refused()) {
            assertTrue(relay.peerMacMatches(binding, last.text().split(" ")[0]), "the server's confirmation checks");
        }
        return last;
    }

    private InviteCode issue(Duration ttl) throws IOException {
        return new Invites(state).issue(ttl, NOW);
    }

    @Test
    void theRightCodeAddsTheRelayOnce() throws Exception {
        InviteCode code = issue(Duration.ofHours(1));
        JoinService.Step done = join(service(NOW), code, SERVER);
        assertFalse(done.refused(), done.text());
        assertEquals(List.of(new RelayEndpoint("relay.example", 7001, RELAY)), new JoinedRelays(state).list());
        assertEquals(1, applied.get());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve("invites"))));
        assertFalse(Files.readString(state.resolve("invites")).contains(code.secret()), "only the verifier is kept");

        JoinService.Step again = join(service(NOW), code, SERVER);
        assertTrue(again.refused() && again.text().contains("is used"), again.text());
        assertEquals(1, applied.get());
    }

    @Test
    void aWrongCodeIsRefusedWithoutChangesAndThreeBurnTheInvite() throws Exception {
        InviteCode code = issue(Duration.ofHours(1));
        InviteCode wrong = new InviteCode(code.id(), code.secret().equals("AAAAAAAAAAAA") ? "BBBBBBBBBBBB" : "AAAAAAAAAAAA");
        JoinService service = service(NOW);
        JoinService.Step refused = join(service, wrong, SERVER);
        assertTrue(refused.refused() && refused.text().contains("does not match") && refused.text().contains("2 tries left"),
                refused.text());
        assertFalse(refused.text().contains(code.secret()));
        assertEquals(List.of(), new JoinedRelays(state).list());
        assertEquals(0, applied.get());
        join(service, wrong, SERVER);
        assertTrue(join(service, wrong, SERVER).text().contains("burnt"));
        JoinService.Step right = join(service, code, SERVER);
        assertTrue(right.refused() && right.text().contains("burnt"), right.text());
        assertEquals(List.of(), new JoinedRelays(state).list());
    }

    @Test
    void anotherServerCertificateFailsConfirmation() throws Exception {
        InviteCode code = issue(Duration.ofHours(1));
        JoinService.Step refused = join(service(NOW), code, RELAY); // the relay saw a certificate in between
        assertTrue(refused.refused(), refused.text());
        assertEquals(List.of(), new JoinedRelays(state).list());
    }

    @Test
    void expiredRevokedAndUnknownInvitesAreRefused() throws Exception {
        InviteCode expired = issue(Duration.ofMinutes(10));
        JoinService.Step late = join(service(NOW.plus(Duration.ofMinutes(11))), expired, SERVER);
        assertTrue(late.refused() && late.text().contains("is expired"), late.text());

        InviteCode revoked = issue(Duration.ofHours(1));
        assertTrue(new Invites(state).revoke(revoked.id()).isPresent());
        JoinService.Step r = join(service(NOW), revoked, SERVER);
        assertTrue(r.refused() && r.text().contains("is revoked"), r.text());

        InviteCode unknown = InviteCode.generate();
        JoinService.Step u = join(service(NOW), unknown, SERVER);
        assertTrue(u.refused() && u.text().contains("no invite"), u.text());
        assertEquals(List.of(), new JoinedRelays(state).list());
        assertEquals(0, applied.get());
    }

    @Test
    void aPortAloneTakesTheHostTheJoinCameFrom() throws Exception {
        InviteCode code = issue(Duration.ofHours(1));
        JoinService service = service(NOW);
        InetSocketAddress peer = new InetSocketAddress("192.0.2.7", 40000);
        JoinExchange relay = new JoinExchange(JoinExchange.Role.RELAY, code.verifier());
        JoinService.Step first = service.begin(code.id(), relay.round1(), peer);
        String[] rounds = first.text().split(" ");
        relay.peerRound1(rounds[0]);
        relay.peerRound2(rounds[1]);
        String mac = relay.mac(new JoinExchange.Binding(code.id(), SERVER.toString(), RELAY.toString(), "7001"));
        JoinService.Step done = service.finish(first.pending().orElseThrow(), relay.round2(), RELAY.toString(), "7001",
                mac, peer);
        assertEquals("192.0.2.7:7001", done.text().split(" ")[1], done.text());
        assertEquals(List.of(new RelayEndpoint("192.0.2.7", 7001, RELAY)), new JoinedRelays(state).list());
    }

    @Test
    void startsAreLimitedPerAddress() throws Exception {
        InviteCode code = issue(Duration.ofHours(1));
        JoinService service = service(NOW);
        InetSocketAddress peer = new InetSocketAddress("10.1.1.1", 40000);
        for (int i = 0; i < JoinService.STARTS_PER_MINUTE; i++) {
            assertFalse(service.begin(code.id(), new JoinExchange(JoinExchange.Role.RELAY, code.verifier()).round1(), peer)
                    .refused());
        }
        JoinService.Step over = service.begin(code.id(), "x", peer);
        assertTrue(over.refused() && over.text().contains("too many attempts"), over.text());
    }

    @Test
    void removingAJoinedRelayLeavesTheOthers() throws Exception {
        JoinedRelays joined = new JoinedRelays(state);
        joined.add(new RelayEndpoint("a", 1, RELAY));
        joined.add(new RelayEndpoint("b", 2, SERVER));
        assertTrue(joined.remove("a:1"));
        assertFalse(joined.remove("a:1"));
        assertEquals(List.of(new RelayEndpoint("b", 2, SERVER)), joined.list());
        assertEquals(List.of(new RelayEndpoint("b", 2, RELAY), new RelayEndpoint("c", 3, RELAY)),
                JoinedRelays.merge(List.of(new RelayEndpoint("b", 2, RELAY)),
                        List.of(new RelayEndpoint("b", 2, SERVER), new RelayEndpoint("c", 3, RELAY))));
    }
}

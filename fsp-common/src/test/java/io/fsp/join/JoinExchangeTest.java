package io.fsp.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.join.JoinExchange.Binding;
import io.fsp.join.JoinExchange.Role;
import org.junit.jupiter.api.Test;

class JoinExchangeTest {
    private static final Binding BINDING = new Binding("ABCD", "AA:BB", "CC:DD", "relay.example:7001");

    /** Runs both sides to the point where each has a key; returns {relay, server}. */
    private static JoinExchange[] run(InviteCode relayCode, InviteCode serverCode) throws Exception {
        JoinExchange relay = new JoinExchange(Role.RELAY, relayCode.verifier());
        JoinExchange server = new JoinExchange(Role.SERVER, serverCode.verifier());
        String r1 = relay.round1();
        server.peerRound1(r1);
        String s1 = server.round1();
        String s2 = server.round2();
        relay.peerRound1(s1);
        relay.peerRound2(s2);
        server.peerRound2(relay.round2());
        return new JoinExchange[] {relay, server};
    }

    @Test
    void theRightCodeConfirmsBothWays() throws Exception {
        InviteCode code = InviteCode.generate();
        JoinExchange[] sides = run(code, code);
        assertTrue(sides[1].peerMacMatches(BINDING, sides[0].mac(BINDING)));
        assertTrue(sides[0].peerMacMatches(BINDING, sides[1].mac(BINDING)));
    }

    @Test
    void aWrongCodeFailsConfirmation() throws Exception {
        InviteCode code = InviteCode.generate();
        InviteCode wrong = new InviteCode(code.id(), code.secret().equals("AAAAAAAAAAAA") ? "BBBBBBBBBBBB" : "AAAAAAAAAAAA");
        JoinExchange[] sides = run(wrong, code);
        assertFalse(sides[1].peerMacMatches(BINDING, sides[0].mac(BINDING)));
    }

    @Test
    void theMacsBindBothFingerprints() throws Exception {
        InviteCode code = InviteCode.generate();
        JoinExchange[] sides = run(code, code);
        String relayMac = sides[0].mac(BINDING);
        assertFalse(sides[1].peerMacMatches(new Binding("ABCD", "EE:FF", "CC:DD", "relay.example:7001"), relayMac),
                "another server certificate (someone in the middle)");
        assertFalse(sides[1].peerMacMatches(new Binding("ABCD", "AA:BB", "EE:FF", "relay.example:7001"), relayMac));
        assertFalse(sides[1].peerMacMatches(new Binding("ABCD", "AA:BB", "CC:DD", "other:7001"), relayMac));
        assertFalse(sides[0].peerMacMatches(BINDING, relayMac), "a side's own MAC is not the peer's");
        assertFalse(sides[1].peerMacMatches(BINDING, "not base64!"));
    }

    @Test
    void badPayloadsAreRefused() {
        JoinExchange server = new JoinExchange(Role.SERVER, InviteCode.generate().verifier());
        assertThrows(JoinExchange.JoinRefused.class, () -> server.peerRound1("AAAA"));
        assertThrows(JoinExchange.JoinRefused.class, () -> server.peerRound1(JoinMessages.encode(
                java.math.BigInteger.ONE, java.math.BigInteger.TWO, java.math.BigInteger.ONE, java.math.BigInteger.ONE,
                java.math.BigInteger.ONE, java.math.BigInteger.ONE)), "proofs that do not hold");
    }

    @Test
    void codesReadBackAsTyped() {
        InviteCode code = InviteCode.generate();
        assertEquals(19, code.toString().length());
        assertEquals(code, InviteCode.parse(code.toString().toLowerCase(java.util.Locale.ROOT).replace("-", " ")));
        assertThrows(IllegalArgumentException.class, () -> InviteCode.parse("ABCD-EFGH-1JKL-MNOP"));
        assertThrows(IllegalArgumentException.class, () -> InviteCode.parse("ABCD-EFGH"));
    }
}

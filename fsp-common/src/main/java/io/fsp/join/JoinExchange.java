package io.fsp.join;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.bouncycastle.crypto.CryptoException;
import org.bouncycastle.crypto.agreement.jpake.JPAKEParticipant;
import org.bouncycastle.crypto.agreement.jpake.JPAKEPrimeOrderGroups;
import org.bouncycastle.crypto.agreement.jpake.JPAKERound1Payload;
import org.bouncycastle.crypto.agreement.jpake.JPAKERound2Payload;

/**
 * One side of a join: J-PAKE (RFC 8236) over the 2048-bit NIST group keyed by the invite's {@link
 * InviteCode#verifier()}, then key confirmation. Someone who watches the exchange learns nothing that lets them test
 * guesses of the code offline; a peer who guesses gets one try per exchange, and the server counts them. Each side's
 * confirmation MAC covers the invite id, both certificate fingerprints, the relay's address and every payload, so a
 * party in the middle (a different TLS certificate) makes the MACs disagree.
 */
public final class JoinExchange {
    public enum Role {
        RELAY("fsp-relay"), SERVER("fsp-server");

        final String participant;

        Role(String participant) {
            this.participant = participant;
        }

        Role peer() {
            return this == RELAY ? SERVER : RELAY;
        }
    }

    /** What both MACs cover besides the payloads. */
    public record Binding(String inviteId, String serverFingerprint, String relayFingerprint, String relayAddress) {
    }

    private final Role role;
    private final JPAKEParticipant me;
    private final StringBuilder transcript = new StringBuilder();
    private final String round1;
    private String round2;
    private byte[] key;

    public JoinExchange(Role role, String verifier) {
        this.role = role;
        this.me = new JPAKEParticipant(role.participant, verifier.toCharArray(), JPAKEPrimeOrderGroups.NIST_2048);
        // J-PAKE makes a side's round 1 before it checks the peer's, whichever arrives first.
        JPAKERound1Payload p = me.createRound1PayloadToSend();
        BigInteger[] z1 = p.getKnowledgeProofForX1();
        BigInteger[] z2 = p.getKnowledgeProofForX2();
        round1 = noted(JoinMessages.encode(p.getGx1(), p.getGx2(), z1[0], z1[1], z2[0], z2[1]));
    }

    /** This side's first payload. */
    public String round1() {
        return round1;
    }

    /**
     * Checks the peer's first payload.
     *
     * @throws JoinRefused a payload that does not decode or whose proofs fail
     */
    public void peerRound1(String text) throws JoinRefused {
        try {
            BigInteger[] n = JoinMessages.decode(text, 6);
            me.validateRound1PayloadReceived(new JPAKERound1Payload(role.peer().participant, n[0], n[1],
                    new BigInteger[] {n[2], n[3]}, new BigInteger[] {n[4], n[5]}));
        } catch (IllegalArgumentException | CryptoException e) {
            throw new JoinRefused("round 1: " + e.getMessage());
        }
        noted(text);
    }

    /** This side's second payload; after {@link #peerRound1}. */
    public String round2() {
        if (round2 == null) {
            JPAKERound2Payload p = me.createRound2PayloadToSend();
            BigInteger[] z = p.getKnowledgeProofForX2s();
            round2 = noted(JoinMessages.encode(p.getA(), z[0], z[1]));
        }
        return round2;
    }

    /** Checks the peer's second payload and derives the key; after {@link #peerRound1}. */
    public void peerRound2(String text) throws JoinRefused {
        round2(); // J-PAKE makes this side's round 2 before it checks the peer's
        try {
            BigInteger[] n = JoinMessages.decode(text, 3);
            me.validateRound2PayloadReceived(new JPAKERound2Payload(role.peer().participant, n[0],
                    new BigInteger[] {n[1], n[2]}));
            BigInteger material = me.calculateKeyingMaterial();
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update("fsp-join key\0".getBytes(StandardCharsets.US_ASCII));
            key = sha.digest(material.toByteArray());
        } catch (IllegalArgumentException | IllegalStateException | CryptoException e) {
            throw new JoinRefused("round 2: " + e.getMessage());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        noted(text);
    }

    /** This side's confirmation MAC (base64), after {@link #peerRound2}. */
    public String mac(Binding binding) {
        return Base64.getEncoder().encodeToString(mac(role, binding));
    }

    /** Whether {@code presented} is the peer's MAC over the same binding, compared in constant time. */
    public boolean peerMacMatches(Binding binding, String presented) {
        byte[] theirs;
        try {
            theirs = Base64.getDecoder().decode(presented);
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(mac(role.peer(), binding), theirs);
    }

    private byte[] mac(Role who, Binding b) {
        if (key == null) {
            throw new IllegalStateException("no key yet: the peer's round 2 comes first");
        }
        try {
            Mac hmac = Mac.getInstance("HmacSHA256");
            hmac.init(new SecretKeySpec(key, "HmacSHA256"));
            // The payloads in the order both sides saw them: the relay's round 1 first.
            String text = String.join("\n", List.of("fsp-join-v1 " + who.participant, b.inviteId(),
                    b.serverFingerprint(), b.relayFingerprint(), b.relayAddress(), ordered()));
            return hmac.doFinal(text.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The payloads sorted, so that both sides get the same text whatever order each sent and saw them in. */
    private String ordered() {
        return transcript.toString().lines().sorted().reduce("", (a, s) -> a + s + "\n");
    }

    private String noted(String payload) {
        transcript.append(payload).append('\n');
        return payload;
    }

    /** A refused exchange: a payload that is not well formed or whose proofs fail. */
    public static final class JoinRefused extends Exception {
        public JoinRefused(String message) {
            super(message);
        }
    }
}

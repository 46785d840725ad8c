package io.fsp.extension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.tls.Certificates;
import io.fsp.tls.KeyMaterial;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OriginSignatureTest {
    private static final KeyMaterial EC = Certificates.selfSigned("origin");
    private static final List<String> LINES = List.of(
            "FSP 00112233445566ff kind=file files=1 directories=0 bytes=10 blocks=1 retain=7d",
            "KEY none",
            "FILE 0 10 0 a.bin",
            "BLK 0 relay:0 0 0 10 sha256:" + "ab".repeat(32));

    private static byte[] sha256(List<String> lines) {
        OriginSignature.Lines l = new OriginSignature.Lines();
        lines.forEach(l::add);
        return l.sha256();
    }

    /** An RSA key and a self-signed certificate, as an operator's configured private-key may be. */
    private static KeyMaterial rsa() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        KeyPair keys = g.generateKeyPair();
        X500Name name = new X500Name("CN=origin");
        Instant now = Instant.now();
        X509Certificate c = new JcaX509CertificateConverter().getCertificate(new JcaX509v3CertificateBuilder(name,
                BigInteger.ONE, Date.from(now), Date.from(now.plusSeconds(3600)), name, keys.getPublic())
                .build(new JcaContentSignerBuilder("SHA256withRSA").build(keys.getPrivate())));
        return new KeyMaterial(keys.getPrivate(), List.of(c));
    }

    private static final OriginSignature.Terms TERMS = new OriginSignature.Terms(Instant.parse("2026-11-24T08:00:00Z"),
            Instant.parse("2026-12-01T08:00:00Z"), OriginSignature.COMPLETE);

    private static OriginSignature sign(KeyMaterial key, String user, String path, List<String> lines) {
        return OriginSignature.sign(key.privateKey(), user, path, TERMS, lines.size(), sha256(lines));
    }

    @Test
    void signsAndVerifiesWithEcAndRsaKeys() throws Exception {
        for (KeyMaterial key : List.of(EC, rsa())) {
            OriginSignature s = sign(key, "alice", "/data", LINES);
            assertEquals(2, s.version());
            assertTrue(s.verifies(key.certificate(), "alice", "/data", sha256(LINES)), key.privateKey().getAlgorithm());
            assertTrue(s.format().startsWith("SIG 4 complete 2026-11-24T08:00:00Z 2026-12-01T08:00:00Z "), s.format());
            OriginSignature back = OriginSignature.parse(s.format());
            assertEquals(s, back);
            assertTrue(back.verifies(key.certificate(), "alice", "/data", sha256(LINES)));
        }
    }

    @Test
    void aTamperedAnnouncementAWrongKeyOrCertificateOrAccountOrPathIsRefused() throws Exception {
        OriginSignature s = sign(EC, "alice", "/data", LINES);
        for (int i = 0; i < LINES.size(); i++) {
            List<String> tampered = new java.util.ArrayList<>(LINES);
            tampered.set(i, LINES.get(i) + "0");
            assertFalse(s.verifies(EC.certificate(), "alice", "/data", sha256(tampered)), "line " + i + " changed");
        }
        assertFalse(s.verifies(EC.certificate(), "alice", "/data", sha256(LINES.subList(0, 3))), "a line fewer");
        assertFalse(new OriginSignature(3, TERMS, s.signature()).verifies(EC.certificate(), "alice", "/data",
                sha256(LINES)), "another count");
        assertFalse(s.verifies(Certificates.selfSigned("origin").certificate(), "alice", "/data", sha256(LINES)),
                "another certificate of the same name");
        assertFalse(s.verifies(rsa().certificate(), "alice", "/data", sha256(LINES)), "an RSA certificate");
        assertFalse(s.verifies(EC.certificate(), "mallory", "/data", sha256(LINES)), "another account");
        assertFalse(s.verifies(EC.certificate(), "alice", "/data2", sha256(LINES)), "another path");
        // a signature made with another key, over the very same statement
        OriginSignature forged = sign(Certificates.selfSigned("origin"), "alice", "/data", LINES);
        assertFalse(forged.verifies(EC.certificate(), "alice", "/data", sha256(LINES)), "another key");
        byte[] sig = s.signature();
        for (int n = 1; n < sig.length; n++) {
            assertFalse(new OriginSignature(4, TERMS, Arrays.copyOf(sig, n)).verifies(EC.certificate(), "alice", "/data",
                    sha256(LINES)), "truncated to " + n);
        }
        sig[sig.length / 2] ^= 1;
        assertFalse(new OriginSignature(4, TERMS, sig).verifies(EC.certificate(), "alice", "/data", sha256(LINES)),
                "a bit flipped");
    }

    @Test
    void anotherCreatedRetainUntilOrStateDoesNotVerify() {
        OriginSignature s = sign(EC, "alice", "/data", LINES);
        Instant created = TERMS.created();
        Instant until = TERMS.retainUntil();
        for (OriginSignature.Terms other : List.of(
                new OriginSignature.Terms(created.minusSeconds(1), until, OriginSignature.COMPLETE),
                new OriginSignature.Terms(created, until.plusSeconds(86_400), OriginSignature.COMPLETE),
                new OriginSignature.Terms(created, until, OriginSignature.RUNNING),
                new OriginSignature.Terms(created, until, OriginSignature.PARTIAL))) {
            assertFalse(s.withTerms(other).verifies(EC.certificate(), "alice", "/data", sha256(LINES)), other.toString());
        }
        assertTrue(s.withTerms(TERMS).verifies(EC.certificate(), "alice", "/data", sha256(LINES)));
        // nor as a version 1 signature, which signs no terms
        assertFalse(new OriginSignature(4, s.signature()).verifies(EC.certificate(), "alice", "/data", sha256(LINES)));
    }

    @Test
    void whatIsSignedIsTheAgreedText() {
        byte[] digest = sha256(LINES);
        assertEquals("fsp origin evacuation 2\nuser alice\npath /my data\ncreated 2026-11-24T08:00:00Z\n"
                + "retain-until 2026-12-01T08:00:00Z\nstate complete\nlines 4\nsha256 "
                + java.util.HexFormat.of().formatHex(digest) + "\n",
                new String(OriginSignature.statement("alice", "/my data", TERMS, 4, digest), StandardCharsets.UTF_8));
        assertEquals("fsp origin announcements 1\nuser alice\npath /my data\nlines 4\nsha256 "
                + java.util.HexFormat.of().formatHex(digest) + "\n",
                new String(OriginSignature.statement("alice", "/my data", 4, digest), StandardCharsets.UTF_8));
        assertThrows(IllegalArgumentException.class, () -> OriginSignature.statement("alice", "/a\nlines 9", TERMS, 4,
                digest));
        assertThrows(IllegalArgumentException.class, () -> new OriginSignature.Terms(TERMS.created().plusMillis(1),
                TERMS.retainUntil(), OriginSignature.COMPLETE), "whole seconds only");
        assertThrows(IllegalArgumentException.class, () -> new OriginSignature.Terms(TERMS.created(),
                TERMS.retainUntil(), "done"));
    }

    /** An older origin's signature (version 1: lines, account and path) is still read and verified. */
    @Test
    void aVersion1SignatureIsStillReadAndVerified() throws Exception {
        java.security.Signature signer = java.security.Signature.getInstance("SHA256withECDSA");
        signer.initSign(EC.privateKey());
        signer.update(OriginSignature.statement("alice", "/data", 4, sha256(LINES)));
        String line = "SIG 4 " + Base64.getEncoder().encodeToString(signer.sign());
        OriginSignature old = OriginSignature.parse(line);
        assertEquals(1, old.version());
        assertEquals(line, old.format());
        assertTrue(old.verifies(EC.certificate(), "alice", "/data", sha256(LINES)));
        assertFalse(old.verifies(EC.certificate(), "mallory", "/data", sha256(LINES)));
        assertFalse(old.withTerms(TERMS).verifies(EC.certificate(), "alice", "/data", sha256(LINES)),
                "a version 1 signature vouches for no created, retain-until or state");
    }

    @ParameterizedTest
    @ValueSource(strings = {"SIG", "SIG 4", "SIG 4 ", "SIG 04 AAAA", "SIG -1 AAAA", "SIG 4 AAAA extra", "SIG  4 AAAA",
            "SIG 4 AA=A", "SIG 4 AAA", "SIG 4 ####", "sig 4 AAAA", "SIG 4 AA===",
            "SIG 4 done 2026-11-24T08:00:00Z 2026-12-01T08:00:00Z AAAA",
            "SIG 4 complete 2026-11-24T08:00:00.5Z 2026-12-01T08:00:00Z AAAA",
            "SIG 4 complete 2026-11-24T08:00Z 2026-12-01T08:00:00Z AAAA",
            "SIG 4 complete 2026-11-24 2026-12-01T08:00:00Z AAAA",
            "SIG 4 complete 2026-11-24T08:00:00Z 2026-12-01T08:00:00+00:00 AAAA",
            "SIG 4 complete 2026-11-24T08:00:00Z AAAA",
            "SIG 4 Complete 2026-11-24T08:00:00Z 2026-12-01T08:00:00Z AAAA"})
    void malformedLinesAreRefused(String line) {
        assertThrows(IllegalArgumentException.class, () -> OriginSignature.parse(line));
    }

    @Test
    void aSignatureOverTheLimitIsRefusedBeforeItIsDecoded() {
        String prefix = "SIG 4 complete 2026-11-24T08:00:00Z 2026-12-01T08:00:00Z ";
        String line = prefix + Base64.getEncoder().encodeToString(new byte[ExtensionLimits.MAX_SIGNATURE_BYTES + 64]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OriginSignature.parse(line));
        assertTrue(e.getMessage().startsWith("SIG: " + line.length() + " characters"), e.getMessage());
        String over = prefix + Base64.getEncoder().encodeToString(new byte[ExtensionLimits.MAX_SIGNATURE_BYTES + 1]);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> OriginSignature.parse(over)).getMessage()
                .startsWith("signature bytes: 1025"));
        String most = "SIG 999999999999999999 partial 2026-11-24T08:00:00Z 2026-12-01T08:00:00Z "
                + Base64.getEncoder().encodeToString(new byte[ExtensionLimits.MAX_SIGNATURE_BYTES]);
        assertEquals(ExtensionLimits.MAX_SIGNATURE_BYTES, OriginSignature.parse(most).signature().length);
    }
}

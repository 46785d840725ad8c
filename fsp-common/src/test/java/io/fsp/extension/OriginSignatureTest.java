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

    @Test
    void signsAndVerifiesWithEcAndRsaKeys() throws Exception {
        for (KeyMaterial key : List.of(EC, rsa())) {
            OriginSignature s = OriginSignature.sign(key.privateKey(), "alice", "/data", LINES.size(), sha256(LINES));
            assertTrue(s.verifies(key.certificate(), "alice", "/data", sha256(LINES)), key.privateKey().getAlgorithm());
            OriginSignature back = OriginSignature.parse(s.format());
            assertEquals(s, back);
            assertTrue(back.verifies(key.certificate(), "alice", "/data", sha256(LINES)));
        }
    }

    @Test
    void aTamperedAnnouncementAWrongKeyOrCertificateOrAccountOrPathIsRefused() throws Exception {
        OriginSignature s = OriginSignature.sign(EC.privateKey(), "alice", "/data", LINES.size(), sha256(LINES));
        for (int i = 0; i < LINES.size(); i++) {
            List<String> tampered = new java.util.ArrayList<>(LINES);
            tampered.set(i, LINES.get(i) + "0");
            assertFalse(s.verifies(EC.certificate(), "alice", "/data", sha256(tampered)), "line " + i + " changed");
        }
        assertFalse(s.verifies(EC.certificate(), "alice", "/data", sha256(LINES.subList(0, 3))), "a line fewer");
        assertFalse(new OriginSignature(3, s.signature()).verifies(EC.certificate(), "alice", "/data", sha256(LINES)),
                "another count");
        assertFalse(s.verifies(Certificates.selfSigned("origin").certificate(), "alice", "/data", sha256(LINES)),
                "another certificate of the same name");
        assertFalse(s.verifies(rsa().certificate(), "alice", "/data", sha256(LINES)), "an RSA certificate");
        assertFalse(s.verifies(EC.certificate(), "mallory", "/data", sha256(LINES)), "another account");
        assertFalse(s.verifies(EC.certificate(), "alice", "/data2", sha256(LINES)), "another path");
        // a signature made with another key, over the very same statement
        OriginSignature forged = OriginSignature.sign(Certificates.selfSigned("origin").privateKey(), "alice", "/data",
                LINES.size(), sha256(LINES));
        assertFalse(forged.verifies(EC.certificate(), "alice", "/data", sha256(LINES)), "another key");
        byte[] sig = s.signature();
        for (int n = 1; n < sig.length; n++) {
            assertFalse(new OriginSignature(4, Arrays.copyOf(sig, n)).verifies(EC.certificate(), "alice", "/data",
                    sha256(LINES)), "truncated to " + n);
        }
        sig[sig.length / 2] ^= 1;
        assertFalse(new OriginSignature(4, sig).verifies(EC.certificate(), "alice", "/data", sha256(LINES)), "a bit flipped");
    }

    @Test
    void whatIsSignedIsTheAgreedText() {
        byte[] digest = sha256(LINES);
        assertEquals("fsp origin announcements 1\nuser alice\npath /my data\nlines 4\nsha256 "
                + java.util.HexFormat.of().formatHex(digest) + "\n",
                new String(OriginSignature.statement("alice", "/my data", 4, digest), StandardCharsets.UTF_8));
        assertThrows(IllegalArgumentException.class, () -> OriginSignature.statement("alice", "/a\nlines 9", 4, digest));
    }

    @ParameterizedTest
    @ValueSource(strings = {"SIG", "SIG 4", "SIG 4 ", "SIG 04 AAAA", "SIG -1 AAAA", "SIG 4 AAAA extra", "SIG  4 AAAA",
            "SIG 4 AA=A", "SIG 4 AAA", "SIG 4 ####", "sig 4 AAAA", "SIG 4 AA==="})
    void malformedLinesAreRefused(String line) {
        assertThrows(IllegalArgumentException.class, () -> OriginSignature.parse(line));
    }

    @Test
    void aSignatureOverTheLimitIsRefusedBeforeItIsDecoded() {
        String line = "SIG 4 " + Base64.getEncoder().encodeToString(new byte[ExtensionLimits.MAX_SIGNATURE_BYTES + 64]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OriginSignature.parse(line));
        assertTrue(e.getMessage().startsWith("SIG: " + line.length() + " characters"), e.getMessage());
        String over = "SIG 4 " + Base64.getEncoder().encodeToString(new byte[ExtensionLimits.MAX_SIGNATURE_BYTES + 1]);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> OriginSignature.parse(over)).getMessage()
                .startsWith("signature bytes: 1025"));
        String most = "SIG 4 " + Base64.getEncoder().encodeToString(new byte[ExtensionLimits.MAX_SIGNATURE_BYTES]);
        assertEquals(ExtensionLimits.MAX_SIGNATURE_BYTES, OriginSignature.parse(most).signature().length);
    }
}

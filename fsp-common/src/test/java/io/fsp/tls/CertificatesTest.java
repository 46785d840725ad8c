package io.fsp.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CertificatesTest {
    @TempDir
    Path dir;

    @Test
    void generatedCertificateIsKeptAcrossRestarts() throws Exception {
        Path cert = dir.resolve("tls/server.crt");
        Path key = dir.resolve("tls/server.key");
        KeyMaterial first = Certificates.loadOrCreate(cert, key, "fsp test");
        KeyMaterial second = Certificates.loadOrCreate(cert, key, "fsp test");
        assertEquals(first.fingerprint(), second.fingerprint());
        assertEquals(first.privateKey(), second.privateKey());
        assertEquals(java.util.Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE),
                Files.getPosixFilePermissions(key));
    }

    /**
     * Processes that start on a new state directory together (a relay and {@code fsp-relay fingerprint}, run at once
     * to pass the fingerprint on) all get the one pair that is on disk.
     */
    @Test
    void processesStartingTogetherShareOnePair() throws Exception {
        Path cert = dir.resolve("state/relay.crt");
        Path key = dir.resolve("state/relay.key");
        java.util.List<Process> processes = new java.util.ArrayList<>();
        for (int i = 0; i < 4; i++) {
            processes.add(new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                    System.getProperty("java.class.path"), LoadOrCreate.class.getName(), cert.toString(), key.toString())
                    .redirectErrorStream(true).start());
        }
        java.util.Set<String> printed = new java.util.HashSet<>();
        for (Process p : processes) {
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).strip();
            assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), out);
            printed.add(out);
        }
        KeyMaterial onDisk = Certificates.load(cert, key);
        assertEquals(java.util.Set.of(onDisk.fingerprint().toString()), printed);
        // and the key on disk is the certificate's
        java.security.Signature sign = java.security.Signature.getInstance("SHA256withECDSA");
        sign.initSign(onDisk.privateKey());
        sign.update(new byte[] {1, 2, 3});
        byte[] signature = sign.sign();
        java.security.Signature verify = java.security.Signature.getInstance("SHA256withECDSA");
        verify.initVerify(onDisk.chain().get(0).getPublicKey());
        verify.update(new byte[] {1, 2, 3});
        assertTrue(verify.verify(signature));
    }

    /** One process of {@link #processesStartingTogetherShareOnePair}: loads or makes the pair, prints its fingerprint. */
    public static final class LoadOrCreate {
        public static void main(String[] args) throws Exception {
            System.out.println(Certificates.loadOrCreate(Path.of(args[0]), Path.of(args[1]), "race").fingerprint());
        }
    }

    @Test
    void eachGeneratedCertificateHasItsOwnFingerprint() {
        assertNotEquals(Certificates.selfSigned("a").fingerprint(), Certificates.selfSigned("a").fingerprint());
    }

    @Test
    void fingerprintParsesWhatItPrints() {
        Fingerprint f = Certificates.selfSigned("x").fingerprint();
        assertEquals(f, Fingerprint.parse(f.toString()));
        assertEquals(f, Fingerprint.parse("sha256:" + f.toString().replace(":", "").toLowerCase()));
        assertTrue(f.toString().matches("([0-9A-F]{2}:){31}[0-9A-F]{2}"));
    }

    /** The message says what is wrong: the count of digits, or the character that is not one (a bracket copied with it). */
    @Test
    void fingerprintRejectsWrongLengthAndNonHex() {
        assertEquals("fingerprint 'AB:CD': 4 hex digits (expected: 64, the 32 bytes of SHA-256)",
                assertThrows(IllegalArgumentException.class, () -> Fingerprint.parse("AB:CD")).getMessage());
        assertEquals("fingerprint '" + "zz".repeat(32) + "': 'z' is not a hex digit (expected: the 32 bytes of SHA-256 as hex,"
                + " AB:CD:…)", assertThrows(IllegalArgumentException.class, () -> Fingerprint.parse("zz".repeat(32))).getMessage());
        String printed = Certificates.selfSigned("t").fingerprint().toString();
        IllegalArgumentException copied = assertThrows(IllegalArgumentException.class, () -> Fingerprint.parse(printed + ")"));
        assertTrue(copied.getMessage().contains("')' is not a hex digit"), copied.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Fingerprint.parse("\u0663".repeat(64)), "a non-ASCII digit");
    }

    @Test
    void aPrivateKeyOthersCanReadIsRefusedWithWhatToDo() throws Exception {
        Path cert = dir.resolve("c.pem");
        Path key = dir.resolve("k.pem");
        Certificates.write(Certificates.selfSigned("x"), cert, key);
        Files.setPosixFilePermissions(key, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> Certificates.load(cert, key));
        assertTrue(e.getMessage().contains("chmod 600 " + key), e.getMessage());
        Files.setPosixFilePermissions(key, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        Certificates.load(cert, key);
    }

    @Test
    void loadRejectsFilesWithoutPem() throws Exception {
        Path cert = Files.writeString(dir.resolve("c.pem"), "not a certificate");
        Path key = Files.writeString(dir.resolve("k.pem"), "");
        assertThrows(java.io.IOException.class, () -> Certificates.load(cert, key));
    }
}

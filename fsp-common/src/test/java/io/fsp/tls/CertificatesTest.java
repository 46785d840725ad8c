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

    @Test
    void fingerprintRejectsWrongLengthAndNonHex() {
        assertThrows(IllegalArgumentException.class, () -> Fingerprint.parse("AB:CD"));
        assertThrows(IllegalArgumentException.class, () -> Fingerprint.parse("zz".repeat(32)));
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

package io.fsp.server.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class PasswordHasherTest {
    @Test
    void verifiesTheRightPasswordOnly() {
        String hash = PasswordHasher.hash("correct horse");
        assertTrue(hash.startsWith("$argon2id$v=19$m=19456,t=2,p=1$"), hash);
        assertTrue(PasswordHasher.verify(hash, "correct horse"));
        assertFalse(PasswordHasher.verify(hash, "correct horsf"));
        assertFalse(PasswordHasher.verify(hash, ""));
    }

    /** The native library must load where the build runs (linux-x86_64), or logins silently cost four times more. */
    @Test
    void libargon2LoadsOnLinuxX86_64() {
        if (System.getProperty("os.name").equals("Linux") && System.getProperty("os.arch").equals("amd64")) {
            assertNotNull(PasswordHasher.Native.ARGON2, "libargon2 (see the log for why it did not load)");
        }
    }

    /**
     * libargon2 and Bouncy Castle, two implementations of RFC 9106, derive the same bytes: hashes made by either
     * verify with the other.
     */
    @ParameterizedTest
    @CsvSource({"8,1,1,16", "64,3,2,32", "19456,2,1,32", "1024,1,4,64", "4096,2,3,24"})
    void nativeAndJavaArgon2DeriveTheSameBytes(int memory, int iterations, int parallelism, int length) {
        if (PasswordHasher.Native.ARGON2 == null) {
            return; // another platform: only Bouncy Castle serves, checked by the other tests
        }
        Random random = new Random(memory * 31L + iterations);
        byte[] salt = new byte[16];
        random.nextBytes(salt);
        byte[] password = "pässwörd €".getBytes(StandardCharsets.UTF_8);
        assertArrayEquals(
                PasswordHasher.deriveJava(password, salt, memory, iterations, parallelism, length),
                PasswordHasher.deriveNative(PasswordHasher.Native.ARGON2, password, salt, memory, iterations, parallelism,
                        length));
    }

    @Test
    void saltsEveryHash() {
        assertNotEquals(PasswordHasher.hash("same"), PasswordHasher.hash("same"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "plain-text",
        "$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
        "$argon2id$v=19$m=99999999,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
        "$argon2id$v=19$m=19456,t=0,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
        "$argon2id$v=19$m=19456,t=2,p=1$c2Fs$aGFzaGhhc2hoYXNoaGFzaA"})
    void refusesMalformedOrTooCostlyHashes(String phc) {
        assertThrows(IllegalArgumentException.class, () -> PasswordHasher.validate(phc));
    }

    @Test
    void loginThrottleDoublesDelayAndForgetsOnSuccess() throws Exception {
        LoginThrottle t = new LoginThrottle(java.time.Duration.ofMillis(100));
        var a = java.net.InetAddress.getByName("127.0.0.1");
        org.junit.jupiter.api.Assertions.assertEquals(100, t.failed(a).toMillis());
        org.junit.jupiter.api.Assertions.assertEquals(200, t.failed(a).toMillis());
        org.junit.jupiter.api.Assertions.assertEquals(400, t.failed(a).toMillis());
        for (int i = 0; i < 10; i++) {
            t.failed(a);
        }
        org.junit.jupiter.api.Assertions.assertEquals(1600, t.failed(a).toMillis(), "capped at 16x");
        t.succeeded(a);
        org.junit.jupiter.api.Assertions.assertEquals(100, t.failed(a).toMillis());
    }
}

package io.fsp.server.auth;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
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

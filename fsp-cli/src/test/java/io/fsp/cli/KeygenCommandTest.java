package io.fsp.cli;

import static io.fsp.cli.FspRun.fsp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.crypto.RecipientKey;
import io.fsp.crypto.SealedBox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeygenCommandTest {
    @TempDir
    Path dir;

    @Test
    void writesAnOwnerOnlyIdentityAndPrintsThePublicKeyThatSealsToIt() throws Exception {
        Path keys = dir.resolve("safe-site");
        FspRun run = fsp("keygen", "-o", keys.toString(), "--comment", "vault B");
        assertEquals(0, run.exit(), run.err());
        String printed = run.out().strip();
        assertTrue(printed.startsWith("fsp-x25519 ") && printed.endsWith(" vault B"), printed);
        assertEquals(printed, Files.readString(keys.resolve("recipient.pub")).strip());
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keys.resolve("identity"))));

        byte[] sealed = SealedBox.seal(new byte[] {1, 2, 3}, RecipientKey.parsePublic(printed), "test");
        RecipientKey identity = RecipientKey.readIdentity(keys.resolve("identity"));
        assertEquals(3, SealedBox.open(sealed, identity, "test").length);
        assertTrue(run.err().contains(identity.fingerprint()), run.err());
    }

    @Test
    void keepsAnExistingKeyUnlessForced() throws Exception {
        assertEquals(0, fsp("keygen", "-o", dir.toString()).exit());
        String first = Files.readString(dir.resolve("identity"));
        FspRun again = fsp("keygen", "-o", dir.toString());
        assertEquals(ExitCodes.FAILURE, again.exit());
        assertTrue(again.err().contains("exists; keeping it"), again.err());
        assertEquals(first, Files.readString(dir.resolve("identity")));

        assertEquals(0, fsp("keygen", "-o", dir.toString(), "--force").exit());
        assertNotEquals(first, Files.readString(dir.resolve("identity")));
        assertEquals(ExitCodes.USAGE, fsp("keygen").exit(), "-o is required");
    }
}

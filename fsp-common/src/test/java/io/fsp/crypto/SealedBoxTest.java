package io.fsp.crypto;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.crypto.SealedBox.SealedBoxException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SealedBoxTest {
    private static final String PURPOSE = "evacuation manifest";

    @TempDir
    Path dir;

    @Test
    void opensWithTheIdentityAndItsFilesAfterARoundTrip() throws Exception {
        RecipientKey key = RecipientKey.generate("safe site");
        key.writeIdentity(dir.resolve("identity"), false);
        key.writePublic(dir.resolve("recipient.pub"), false);
        RecipientKey pub = RecipientKey.readPublic(dir.resolve("recipient.pub"));
        RecipientKey identity = RecipientKey.readIdentity(dir.resolve("identity"));
        assertFalse(pub.hasIdentity());
        assertEquals(key.fingerprint(), pub.fingerprint());
        assertEquals(key.publicLine(), pub.publicLine());
        assertTrue(pub.publicLine().endsWith(" safe site"));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("identity"))));

        byte[] data = new byte[100_000];
        new Random(1).nextBytes(data);
        byte[] sealed = SealedBox.seal(data, pub, PURPOSE);
        assertFalse(indexOf(sealed, Arrays.copyOf(data, 64)) >= 0, "no plaintext in the box");
        assertArrayEquals(data, SealedBox.open(sealed, identity, PURPOSE));
        // Two seals of the same data differ (fresh ephemeral key each time).
        assertFalse(Arrays.equals(sealed, SealedBox.seal(data, pub, PURPOSE)));
    }

    @Test
    void everyAlteredByteAndEveryTruncationIsDetected() throws Exception {
        RecipientKey key = RecipientKey.generate("");
        byte[] sealed = SealedBox.seal("blocks, keys and digests".getBytes(StandardCharsets.UTF_8), key, PURPOSE);
        for (int i = 0; i < sealed.length; i++) {
            byte[] altered = sealed.clone();
            altered[i] ^= 0x01;
            assertThrows(SealedBoxException.class, () -> SealedBox.open(altered, key, PURPOSE), "byte " + i);
        }
        for (int n = 0; n < sealed.length; n++) {
            byte[] cut = Arrays.copyOf(sealed, n);
            assertThrows(SealedBoxException.class, () -> SealedBox.open(cut, key, PURPOSE), "length " + n);
        }
        byte[] longer = Arrays.copyOf(sealed, sealed.length + 1);
        assertThrows(SealedBoxException.class, () -> SealedBox.open(longer, key, PURPOSE));
    }

    @Test
    void aWrongIdentityOrPurposeIsNamed() {
        RecipientKey right = RecipientKey.generate("");
        RecipientKey wrong = RecipientKey.generate("");
        byte[] sealed = SealedBox.seal(new byte[10], right, PURPOSE);
        SealedBoxException e = assertThrows(SealedBoxException.class, () -> SealedBox.open(sealed, wrong, PURPOSE));
        assertTrue(e.getMessage().contains("another recipient key"), e.getMessage());
        SealedBoxException p = assertThrows(SealedBoxException.class, () -> SealedBox.open(sealed, right, "something else"));
        assertTrue(p.getMessage().contains("altered or damaged"), p.getMessage());
        RecipientKey publicOnly = RecipientKey.parsePublic(right.publicLine());
        assertThrows(IllegalArgumentException.class, () -> SealedBox.open(sealed, publicOnly, PURPOSE));
    }

    @Test
    void keyFilesAreCheckedAndNeverOverwritten() throws Exception {
        RecipientKey key = RecipientKey.generate("");
        Path identity = dir.resolve("identity");
        key.writeIdentity(identity, false);
        assertThrows(FileAlreadyExistsException.class, () -> RecipientKey.generate("").writeIdentity(identity, false));
        assertEquals(key.fingerprint(), RecipientKey.readIdentity(identity).fingerprint(), "the first key is kept");

        Files.setPosixFilePermissions(identity, PosixFilePermissions.fromString("rw-r--r--"));
        IOException open = assertThrows(IOException.class, () -> RecipientKey.readIdentity(identity));
        assertTrue(open.getMessage().contains("chmod 600"), open.getMessage());

        // Halves that do not belong together, a public key given as identity and the reverse are refused.
        String[] w = Files.readString(identity).strip().split(" ");
        Path mixed = dir.resolve("mixed");
        Files.writeString(mixed, w[0] + " " + w[1] + " " + RecipientKey.generate("").publicLine().split(" ")[1] + "\n");
        Files.setPosixFilePermissions(mixed, PosixFilePermissions.fromString("rw-------"));
        assertTrue(assertThrows(IOException.class, () -> RecipientKey.readIdentity(mixed)).getMessage().contains("belong together"));
        Path pub = dir.resolve("recipient.pub");
        key.writePublic(pub, false);
        Files.setPosixFilePermissions(pub, PosixFilePermissions.fromString("rw-------"));
        assertThrows(IOException.class, () -> RecipientKey.readIdentity(pub));
        IllegalArgumentException hint = assertThrows(IllegalArgumentException.class,
                () -> RecipientKey.parsePublic(Files.readString(identity)));
        assertTrue(hint.getMessage().contains("private identity"), hint.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RecipientKey.parsePublic("fsp-x25519 AAAA"));
        assertThrows(IllegalArgumentException.class, () -> RecipientKey.parsePublic("ssh-ed25519 AAAA"));
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}

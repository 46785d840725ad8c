package io.fsp.relay.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.tls.Certificates;
import io.fsp.token.TokenKey;
import io.fsp.token.TransferId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The metadata file of a retained transfer: written whole and private, read back exactly, anything else refused. */
class RetainedTransferTest {
    private static final RetainedTransfer SOUND = new RetainedTransfer(TransferId.parse("0011223344556677"),
            TokenKey.random(), Instant.parse("2026-12-01T08:00:00.123Z"), 5000, 4000,
            Certificates.selfSigned("server").fingerprint());
    @TempDir
    Path dir;

    @Test
    void writtenMetadataReadsBackAsItWasAndOnlyItsOwnerMayReadIt() throws Exception {
        Path transfer = dir.resolve("store").resolve(SOUND.id().toString());
        SOUND.write(transfer);
        Path file = transfer.resolve(RetainedTransfer.FILE_NAME);
        RetainedTransfer read = RetainedTransfer.read(file);
        assertEquals(SOUND, read);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertTrue(Files.readString(file).startsWith("fsp-relay-transfer 1\ntransfer 0011223344556677\ntoken-key "));
        try (Stream<Path> s = Files.list(transfer)) {
            assertEquals(1, s.count(), "no temporary file left");
        }
        SOUND.write(transfer); // written again: replaced whole
        assertEquals(SOUND, RetainedTransfer.read(file));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "fsp-relay-transfer 1|fsp-relay-transfer 2|version: 2 (expected: 1)",
        "space 5000|space 3000|reservation: 4000 (expected: 1..3000, the space)",
        "reservation 4000|reservation 0|reservation: 0 (expected: 1..5000, the space)",
        "space 5000|space five|For input string",
        "expires-at 2026|expires-at tomorrow|expires-at:",
        "transfer 0011223344556677|transfer 00112233|transferId '00112233': 8 hex digits",
        "owner |nobody |line 7: (expected: 'owner …')",
        "\\nowner|\\nextra 1\\nowner|8 lines (expected: 7)",
    })
    void damagedMetadataIsRefusedSayingWhatIsWrong(String sound, String damaged, String message) throws Exception {
        Path file = dir.resolve(RetainedTransfer.FILE_NAME);
        String text = SOUND.encode();
        assertTrue(text.contains(sound.replace("\\n", "\n")), sound);
        Files.writeString(file, text.replaceFirst(java.util.regex.Pattern.quote(sound.replace("\\n", "\n")),
                java.util.regex.Matcher.quoteReplacement(damaged.replace("\\n", "\n"))));
        IOException e = assertThrows(IOException.class, () -> RetainedTransfer.read(file));
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void anyDamageToTheTextIsEitherHarmlessOrRefusedNeverAnotherFailure() {
        String sound = SOUND.encode();
        java.util.Random random = new java.util.Random(14);
        for (int i = 0; i < 5000; i++) {
            char[] damaged = sound.substring(0, random.nextInt(sound.length() + 1)).toCharArray();
            for (int flips = random.nextInt(4); flips > 0 && damaged.length > 0; flips--) {
                damaged[random.nextInt(damaged.length)] = (char) random.nextInt(128);
            }
            String text = new String(damaged);
            try {
                assertEquals(text, RetainedTransfer.decode(text).encode(), "what is accepted reads back as written");
            } catch (IllegalArgumentException expected) {
                // refused, saying why (read() reports it as an IOException naming the file)
            }
        }
    }

    @Test
    void anOversizedFileIsRefusedWithoutReadingItAll() throws Exception {
        Path file = dir.resolve(RetainedTransfer.FILE_NAME);
        Files.writeString(file, SOUND.encode() + "x".repeat(1 << 20));
        IOException e = assertThrows(IOException.class, () -> RetainedTransfer.read(file));
        assertTrue(e.getMessage().endsWith("more than 1024 bytes"), e.getMessage());
    }
}

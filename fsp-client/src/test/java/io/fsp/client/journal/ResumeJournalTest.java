package io.fsp.client.journal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ResumeJournalTest {
    private static final TransferIdentity ID = new TransferIdentity("alice@127.0.0.1:2121", "/data/big.bin", 10L << 20, 1_700_000_000_000L, "ab12", "fiver");

    @TempDir
    Path tmp;

    private static JournalRecord record(int i) {
        byte[] digest = new byte[32];
        new Random(i).nextBytes(digest);
        return new JournalRecord(i % 2 == 0 ? "big.bin" : "dir/ü.bin", (long) i << 22, 1 << 22, digest);
    }

    @Test
    void newJournalThenResumeKeepsEveryRecord() throws IOException {
        Path file = tmp.resolve("j/get.journal");
        try (ResumeJournal j = ResumeJournal.open(file, ID)) {
            assertEquals(ResumeJournal.State.NEW, j.state());
            j.append(record(0));
            j.append(List.of(record(1), record(2)));
        }
        try (ResumeJournal j = ResumeJournal.open(file, ID)) {
            assertEquals(ResumeJournal.State.RESUMED, j.state());
            assertEquals(Set.of(record(0), record(1), record(2)), j.verified());
            JournalRecord r = record(1);
            assertTrue(j.isVerified(r.path(), r.offset(), r.length(), r.digest()));
            assertFalse(j.isVerified(r.path(), r.offset(), r.length(), record(3).digest()), "another digest is another block");
        }
    }

    @Test
    void crashInsideTheLastRecordKeepsExactlyTheCompleteRecords() throws IOException {
        Path file = tmp.resolve("get.journal");
        long beforeLast;
        try (ResumeJournal j = ResumeJournal.open(file, ID)) {
            for (int i = 0; i < 4; i++) {
                j.append(record(i));
            }
            beforeLast = Files.size(file);
            j.append(record(4));
        }
        long full = Files.size(file);
        Set<JournalRecord> four = Set.of(record(0), record(1), record(2), record(3));
        for (long cut = beforeLast; cut <= full; cut++) {
            Path copy = Files.copy(file, tmp.resolve("cut-" + cut), StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel ch = FileChannel.open(copy, StandardOpenOption.WRITE)) {
                ch.truncate(cut);
            }
            try (ResumeJournal j = ResumeJournal.open(copy, ID)) {
                Set<JournalRecord> expected = new HashSet<>(four);
                if (cut == full) {
                    expected.add(record(4));
                }
                assertEquals(expected, j.verified(), "cut at " + cut);
                assertEquals(cut == full ? 0 : cut - beforeLast, j.cutTailBytes(), "cut at " + cut);
                // Appending after the cut yields a journal that reads back whole.
                j.append(record(9));
            }
            try (ResumeJournal j = ResumeJournal.open(copy, ID)) {
                assertTrue(j.verified().contains(record(9)), "cut at " + cut);
                assertEquals(cut == full ? 6 : 5, j.verified().size(), "cut at " + cut);
                assertEquals(0, j.cutTailBytes());
            }
        }
    }

    @Test
    void garbageAfterTheLastRecordIsCut() throws IOException {
        Path file = tmp.resolve("get.journal");
        try (ResumeJournal j = ResumeJournal.open(file, ID)) {
            j.append(List.of(record(0), record(1)));
        }
        byte[] garbage = new byte[300];
        new Random(3).nextBytes(garbage);
        Files.write(file, garbage, StandardOpenOption.APPEND);
        try (ResumeJournal j = ResumeJournal.open(file, ID)) {
            assertEquals(Set.of(record(0), record(1)), j.verified());
            assertEquals(300, j.cutTailBytes());
        }
    }

    @Test
    void damagedRecordInTheMiddleEndsTheTrustedPart() throws IOException {
        Path file = tmp.resolve("get.journal");
        List<Long> ends = new ArrayList<>();
        try (ResumeJournal j = ResumeJournal.open(file, ID)) {
            for (int i = 0; i < 3; i++) {
                j.append(record(i));
                ends.add(Files.size(file));
            }
        }
        byte[] content = Files.readAllBytes(file);
        content[(int) (ends.get(0) + 10)] ^= 0x40;
        Files.write(file, content);
        try (ResumeJournal j = ResumeJournal.open(file, ID)) {
            assertEquals(Set.of(record(0)), j.verified());
        }
    }

    @Test
    void recordWithASoundChecksumButAPathThatIsNotUtf8IsNotTrusted() throws IOException {
        Path file = tmp.resolve("get.journal");
        try (ResumeJournal j = ResumeJournal.open(file, ID)) {
            j.append(record(0));
        }
        // Laid out as docs/verification.md says, but no journal writes it: its path ends inside a UTF-8 sequence.
        byte[] path = {'a', (byte) 0xC3};
        int payload = 1 + 8 + 4 + 2 + path.length + 1;
        ByteBuffer b = ByteBuffer.allocate(4 + payload + 4);
        b.putInt(payload).put((byte) 1).putLong(0).putInt(4096).putShort((short) path.length).put(path).put((byte) 0);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putInt((int) crc.getValue());
        Files.write(file, b.array(), StandardOpenOption.APPEND);
        assertEquals(Set.of(record(0)), ResumeJournal.peek(file, ID));
        try (ResumeJournal j = ResumeJournal.open(file, ID)) {
            assertEquals(Set.of(record(0)), j.verified());
            assertEquals(b.capacity(), j.cutTailBytes());
        }
    }

    @Test
    void journalOfAChangedFileOrAnotherTransferIsNotTrusted() throws IOException {
        List<TransferIdentity> others = List.of(
                new TransferIdentity("bob@127.0.0.1:2121", ID.path(), ID.size(), ID.modifiedMillis(), ID.manifestDigest(), ID.verifyMode()),
                new TransferIdentity(ID.server(), "/data/other.bin", ID.size(), ID.modifiedMillis(), ID.manifestDigest(), ID.verifyMode()),
                new TransferIdentity(ID.server(), ID.path(), ID.size() + 1, ID.modifiedMillis(), ID.manifestDigest(), ID.verifyMode()),
                new TransferIdentity(ID.server(), ID.path(), ID.size(), ID.modifiedMillis() + 1000, ID.manifestDigest(), ID.verifyMode()),
                new TransferIdentity(ID.server(), ID.path(), ID.size(), ID.modifiedMillis(), "cd34", ID.verifyMode()),
                // blocks recorded by a run that did not verify them are not verified for one that does
                new TransferIdentity(ID.server(), ID.path(), ID.size(), ID.modifiedMillis(), ID.manifestDigest(), "off"),
                new TransferIdentity(ID.server(), ID.path(), ID.size(), ID.modifiedMillis(), ID.manifestDigest(), "riva"));
        for (TransferIdentity other : others) {
            Path file = tmp.resolve("get.journal");
            try (ResumeJournal j = ResumeJournal.open(file, ID)) {
                j.append(record(0));
            }
            try (ResumeJournal j = ResumeJournal.open(file, other)) {
                assertEquals(ResumeJournal.State.STALE_DISCARDED, j.state(), other.toString());
                assertTrue(j.verified().isEmpty(), other.toString());
            }
            try (ResumeJournal j = ResumeJournal.open(file, ID)) {
                assertTrue(j.verified().isEmpty(), "the discarded journal is gone for good");
            }
            Files.delete(file);
        }
    }

    @Test
    void unreadableHeaderIsDiscarded() throws IOException {
        Path file = tmp.resolve("get.journal");
        Files.write(file, "not a journal at all".getBytes());
        try (ResumeJournal j = ResumeJournal.open(file, ID)) {
            assertEquals(ResumeJournal.State.CORRUPT_DISCARDED, j.state());
            j.append(record(5));
        }
        try (ResumeJournal j = ResumeJournal.open(file, ID)) {
            assertEquals(Set.of(record(5)), j.verified());
        }
    }

    @Test
    void deleteRemovesTheJournalOfACompletedTransfer() throws IOException {
        Path file = tmp.resolve("get.journal");
        ResumeJournal j = ResumeJournal.open(file, ID);
        j.append(record(0));
        j.delete();
        assertFalse(Files.exists(file));
    }
}

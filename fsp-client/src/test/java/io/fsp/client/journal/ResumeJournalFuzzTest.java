package io.fsp.client.journal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Coverage-guided fuzzing of the resume journal's reader, which reads whatever a crash or a power loss left on
 * disk (docs/verification.md, "Resume journal"). A journal is written once through {@link ResumeJournal}; each
 * input then damages it (the first input byte picks how) and opens it again:
 * <ul>
 * <li>0: cut at any length, as a crash leaves it, and 1: one byte changed anywhere: exactly the records that
 *     end before the damage are kept, everything from there is cut;</li>
 * <li>2: any bytes appended: every record written is kept;</li>
 * <li>3: any bytes after a valid header.</li>
 * </ul>
 * Always: opening never fails, reading only ({@link ResumeJournal#peek}) finds the same records, only a tail of
 * the file is cut (or a journal with a damaged header is started afresh), and every record read is one the
 * journal itself would have written: its encoding by {@link ResumeJournal#append} is in the file, checksum
 * included. {@code mvn verify} fuzzes it for a bounded time; plain test runs replay the inputs in
 * {@code ResumeJournalFuzzTestInputs}.
 */
class ResumeJournalFuzzTest {
    private static final TransferIdentity ID = new TransferIdentity("alice@127.0.0.1:2121", "/data/big.bin",
            10L << 20, 1_700_000_000_000L, "ab12", "fiver");
    private static final List<JournalRecord> WRITTEN = List.of(
            new JournalRecord("big.bin", 0, 1 << 22, digest(32, 1)),
            new JournalRecord("dir/ü.bin", 1L << 40, 17, new byte[0]),
            new JournalRecord("a", Long.MAX_VALUE, Integer.MAX_VALUE, digest(ResumeJournal.MAX_DIGEST_BYTES, 2)),
            new JournalRecord("big.bin", 4 << 20, 1 << 22, digest(32, 3)));

    @TempDir
    static Path dir;
    /** The journal as written: its header, then WRITTEN, one append each. */
    private static byte[] journal;
    private static int headerLength;
    /** Where each record of WRITTEN ends in {@link #journal}. */
    private static int[] ends;

    // Jazzer turns the JUnit timeout into libFuzzer's per-input limit; it also bounds the whole run.
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    @FuzzTest(maxDuration = "5s")
    void readerKeepsOnlyWrittenRecords(FuzzedDataProvider data) throws IOException {
        writeOnce();
        int mode = data.consumeInt(0, 3);
        byte[] content;
        switch (mode) {
            case 0 -> content = Arrays.copyOf(journal, data.consumeInt(0, journal.length));
            case 1 -> {
                content = journal.clone();
                content[data.consumeInt(0, journal.length - 1)] ^= (byte) data.consumeInt(1, 255);
            }
            case 2 -> content = concat(journal, journal.length, data.consumeRemainingAsBytes());
            default -> content = concat(journal, headerLength, data.consumeRemainingAsBytes());
        }
        int damage = firstDifference(content, journal);
        Path file = dir.resolve("fuzz.journal");
        Files.write(file, content);

        Set<JournalRecord> peeked = ResumeJournal.peek(file, ID);
        try (ResumeJournal j = ResumeJournal.open(file, ID)) {
            Set<JournalRecord> read = j.verified();
            assertEquals(peeked, read, "peek and open read the same records");
            byte[] kept = Files.readAllBytes(file);
            if (damage < headerLength) {
                assertNotEquals(ResumeJournal.State.RESUMED, j.state());
                assertTrue(read.isEmpty(), "a journal with a damaged header is discarded");
                assertArrayEquals(Arrays.copyOf(journal, headerLength), kept, "and started afresh");
            } else {
                assertEquals(ResumeJournal.State.RESUMED, j.state());
                assertArrayEquals(Arrays.copyOf(content, kept.length), kept, "only a tail is cut");
                assertEquals(content.length - kept.length, j.cutTailBytes());
            }
            if (mode <= 1) {
                Set<JournalRecord> before = new HashSet<>();
                for (int i = 0; i < WRITTEN.size() && ends[i] <= damage; i++) {
                    before.add(WRITTEN.get(i));
                }
                assertEquals(before, read, "the records before the damage at " + damage);
            } else if (mode == 2) {
                assertTrue(read.containsAll(WRITTEN), "garbage after the records costs none of them");
            }
            for (JournalRecord r : read) {
                if (!WRITTEN.contains(r)) {
                    byte[] encoded = encoded(r);
                    assertTrue(indexOf(kept, encoded) >= headerLength, "record read is not as written: " + r);
                }
            }
        }
    }

    private static synchronized void writeOnce() throws IOException {
        if (journal != null) {
            return;
        }
        Path file = dir.resolve("written.journal");
        ends = new int[WRITTEN.size()];
        try (ResumeJournal j = ResumeJournal.open(file, ID)) {
            headerLength = (int) Files.size(file);
            for (int i = 0; i < WRITTEN.size(); i++) {
                j.append(WRITTEN.get(i));
                ends[i] = (int) Files.size(file);
            }
        }
        journal = Files.readAllBytes(file);
    }

    /** The bytes {@link ResumeJournal#append} writes for {@code r}. */
    private static byte[] encoded(JournalRecord r) throws IOException {
        Path file = dir.resolve("one.journal");
        Files.deleteIfExists(file);
        try (ResumeJournal j = ResumeJournal.open(file, ID)) {
            j.append(r);
        }
        byte[] all = Files.readAllBytes(file);
        return Arrays.copyOfRange(all, headerLength, all.length);
    }

    private static byte[] digest(int length, long seed) {
        byte[] d = new byte[length];
        new Random(seed).nextBytes(d);
        return d;
    }

    private static byte[] concat(byte[] a, int aLength, byte[] b) {
        byte[] out = Arrays.copyOf(a, aLength + b.length);
        System.arraycopy(b, 0, out, aLength, b.length);
        return out;
    }

    /** The first index where {@code a} differs from {@code b}, or the shorter length. */
    private static int firstDifference(byte[] a, byte[] b) {
        int mismatch = Arrays.mismatch(a, b);
        return mismatch < 0 ? a.length : mismatch;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        return -1;
    }
}

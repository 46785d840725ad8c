package io.fsp.client.verify;

import io.fsp.client.write.PositionalWriter;
import io.fsp.client.journal.JournalRecord;
import io.fsp.client.journal.ResumeJournal;
import io.fsp.client.journal.TransferIdentity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An interrupted transfer resumes from its journal and fetches only the blocks not yet verified. */
@Timeout(60)
class ResumeTest {
    private static final int BLOCK = 32 * 1024;

    @TempDir
    Path tmp;

    @Test
    void resumedTransferFetchesOnlyBlocksNotVerifiedBefore() throws Exception {
        byte[] content = new byte[20 * BLOCK + 321];
        new Random(8).nextBytes(content);
        List<BlockRef> blocks = new ArrayList<>();
        for (int off = 0; off < content.length; off += BLOCK) {
            blocks.add(new BlockRef("data/big.bin", off, Math.min(BLOCK, content.length - off)));
        }
        TransferIdentity id = new TransferIdentity("alice@127.0.0.1:2121", "/big.bin", content.length, 1234, "", "fiver");
        Path dest = tmp.resolve("dest");
        Path journalFile = tmp.resolve("dest/.fsp-journal");

        // First run: interrupted after 12 blocks.
        try (PositionalWriter writer = new PositionalWriter(dest);
             ResumeJournal journal = ResumeJournal.open(journalFile, id);
             FiverVerifier verifier = new FiverVerifier(writer, VerifierConfig.defaults(), journal, e -> { })) {
            writer.prepareFile("data/big.bin", content.length);
            for (BlockRef b : blocks.subList(0, 12)) {
                verifier.submit(b, slice(content, b), sha256(content, b), () -> { });
            }
        }
        // The crash tore the journal's last record.
        try (FileChannel ch = FileChannel.open(journalFile, StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - 3);
        }

        // Second run: the collector asks the journal before fetching each block.
        List<BlockRef> fetched = new ArrayList<>();
        try (PositionalWriter writer = new PositionalWriter(dest);
             ResumeJournal journal = ResumeJournal.open(journalFile, id);
             FiverVerifier verifier = new FiverVerifier(writer, VerifierConfig.defaults(), journal, e -> { })) {
            assertEquals(ResumeJournal.State.RESUMED, journal.state());
            assertEquals(11, journal.verified().size(), "12 verified, the last record torn");
            writer.prepareFile("data/big.bin", content.length);
            for (BlockRef b : blocks) {
                if (!journal.isVerified(b.path(), b.offset(), b.length(), sha256(content, b))) {
                    fetched.add(b);
                    assertTrue(verifier.submit(b, slice(content, b), sha256(content, b), () -> { }).get().verified());
                }
            }
            assertEquals(blocks.size(), journal.verified().size());
            for (BlockRef b : blocks) {
                assertTrue(journal.verified().contains(new JournalRecord(b.path(), b.offset(), b.length(), sha256(content, b))));
            }
            journal.delete();
        }
        assertEquals(blocks.subList(11, blocks.size()), fetched, "only the blocks without a complete record are fetched again");
        assertArrayEquals(content, Files.readAllBytes(dest.resolve("data/big.bin")));
        assertTrue(Files.notExists(journalFile), "a completed transfer leaves no journal");
    }

    private static ByteBuffer slice(byte[] content, BlockRef b) {
        return ByteBuffer.wrap(content, (int) b.offset(), b.length()).slice();
    }

    private static byte[] sha256(byte[] content, BlockRef b) throws Exception {
        byte[] part = new byte[b.length()];
        System.arraycopy(content, (int) b.offset(), part, 0, b.length());
        return FiverVerifierTest.sha256(part);
    }
}

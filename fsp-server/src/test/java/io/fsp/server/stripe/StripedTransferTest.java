package io.fsp.server.stripe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.block.stage.BlockPipeline;
import io.fsp.block.stage.SealedBlock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StripedTransferTest {
    @TempDir
    Path dir;

    private static byte[] bytes(SealedBlock sealed) {
        try {
            return ByteBufUtil.getBytes(sealed.block().content());
        } finally {
            sealed.block().content().release();
        }
    }

    /** Seals block 0 as the striping engine does and records its digest as announced. */
    private static byte[] sealAndAnnounce(StripedTransfer t) throws IOException {
        StripedTransfer.PlannedBlock b = t.plan().get(0);
        try (FileChannel ch = FileChannel.open(t.files().get(0).real(), StandardOpenOption.READ);
             BlockPipeline pipeline = t.pipeline(0)) {
            ByteBuf data = t.read(ch, b);
            SealedBlock sealed;
            try {
                sealed = pipeline.seal(data, b.offset(), t.files().get(0).name(), b.endOfFile());
            } finally {
                data.release();
            }
            assertTrue(t.sealed(0, sealed.digest()));
            return bytes(sealed);
        }
    }

    /** The bytes of every block of the plan, sealed once. */
    private static long sealedBytes(StripedTransfer t) throws IOException {
        long sum = 0;
        for (StripedTransfer.PlannedBlock b : t.plan()) {
            sum += bytes(t.reseal(b.seq())).length;
        }
        return sum;
    }

    @Test
    void theSpaceDeclaredToARelayIsEveryBlockSealedOnceAtItsLargest() throws Exception {
        byte[] random = new byte[50_000];
        new java.util.Random(5).nextBytes(random);
        Path file = Files.write(dir.resolve("a.bin"), random);
        StripedTransfer one = StripedTransfer.plan(file, StripeOptions.DEFAULTS.with("block-size", "4k"),
                new SecureRandom());
        assertEquals(sealedBytes(one), one.maxBytesPerRelay(), "encrypted, one name: exact");

        Path tree = Files.createDirectories(dir.resolve("tree/a-longer-directory-name"));
        Files.write(tree.resolve("b.bin"), random);
        Files.write(dir.resolve("tree/c"), new byte[10_000]); // compresses
        Files.write(dir.resolve("tree/empty"), new byte[0]);
        for (String cipher : new String[] {"aes-256-gcm", "none"}) {
            StripedTransfer t = StripedTransfer.plan(dir.resolve("tree"), StripeOptions.DEFAULTS.with("block-size", "4k")
                    .with("cipher", cipher).with("compression", "zstd").with("checksum", "sha256"), new SecureRandom());
            long sealed = sealedBytes(t);
            assertTrue(sealed <= t.maxBytesPerRelay(), cipher + ": sealed " + sealed + ", declared " + t.maxBytesPerRelay());
        }
    }

    @Test
    void resealOfAnUnchangedFileIsByteIdentical() throws Exception {
        Path file = Files.write(dir.resolve("a.bin"), new byte[100_000]);
        StripedTransfer t = StripedTransfer.plan(file, StripeOptions.DEFAULTS, new SecureRandom());
        byte[] first = sealAndAnnounce(t);
        assertArrayEquals(first, bytes(t.reseal(0)));
    }

    @Test
    void resealRefusesAFileThatChangedSinceItsBlockWasAnnounced() throws Exception {
        Path file = Files.write(dir.resolve("a.bin"), new byte[100_000]);
        StripedTransfer t = StripedTransfer.plan(file, StripeOptions.DEFAULTS, new SecureRandom());
        sealAndAnnounce(t);
        byte[] changed = new byte[100_000];
        changed[7] = 1;
        Files.write(file, changed);
        // Same key and sequence number would mean the same GCM nonce over different plaintext.
        assertThrows(IOException.class, () -> t.reseal(0));
    }

    @Test
    void theFirstSealingOfABlockHoldsEveryLaterOneToItsPlaintext() throws Exception {
        Path file = Files.write(dir.resolve("a.bin"), new byte[100_000]);
        StripedTransfer t = StripedTransfer.plan(file, StripeOptions.DEFAULTS, new SecureRandom());
        byte[] first = bytes(t.reseal(0)); // an origin re-fetch before the engine sealed it (a held block, say)
        assertArrayEquals(first, bytes(t.reseal(0)));
        byte[] changed = new byte[100_000];
        changed[7] = 1;
        Files.write(file, changed);
        assertThrows(IOException.class, () -> t.reseal(0));
    }

    @Test
    void blocksAResumingClientHoldsAreMarkedHeld() throws Exception {
        Path file = Files.write(dir.resolve("a.bin"), new byte[5 * 4096 + 10]);
        StripedTransfer t = StripedTransfer.plan(file, StripeOptions.DEFAULTS.with("block-size", "4k"), new SecureRandom());
        ResumeClaim claim = new ResumeClaim("ab".repeat(32));
        claim.add(0, 0, 4096);
        claim.add(0, 8192, 12288);
        claim.add(0, 12288, 16384); // touches the one before: merged
        claim.add(0, 20480, 20489); // one byte short of the last block
        assertEquals(3, t.hold(claim));
        assertTrue(t.held(0));
        assertFalse(t.held(1));
        assertTrue(t.held(2));
        assertTrue(t.held(3));
        assertFalse(t.held(4));
        assertFalse(t.held(5));
    }

    @Test
    void aClaimIsBounded() {
        ResumeClaim claim = new ResumeClaim("00".repeat(32));
        for (int i = 0; i < ResumeClaim.MAX_RANGES; i++) {
            claim.add(1, 2L * i, 2L * i + 1);
        }
        assertThrows(IllegalArgumentException.class, () -> claim.add(1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new ResumeClaim("not hex"));
        assertThrows(IllegalArgumentException.class, () -> new ResumeClaim("00".repeat(32)).add(0, 5, 5));
    }
}

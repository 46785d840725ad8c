package io.fsp.server.stripe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
            t.announced(0, sealed.digest());
            return bytes(sealed);
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
}

package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.collect.CollectSummary;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import io.fsp.testkit.relay.Fault;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file just over 1 GiB striped over three relays, AES-256-GCM, FIVER-verified, compared byte for byte. The
 * file is sparse (quick to create) with random islands every 16 MiB, so misplaced blocks would show.
 */
class LargeStripedIT {
    private static final long SIZE = (1L << 30) + 4099;

    @TempDir
    Path dir;

    @Test
    void oneGibibyteViaThreeRelaysIsByteIdentical() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, new Fault[0], new Fault[0], new Fault[0])) {
            Path file = rig.root().resolve("large.bin");
            Random random = new Random(99);
            byte[] island = new byte[64 * 1024];
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                for (long at = 0; at < SIZE; at += 16L << 20) {
                    random.nextBytes(island);
                    ch.write(ByteBuffer.wrap(island, 0, (int) Math.min(island.length, SIZE - at)), at);
                }
                ch.write(ByteBuffer.wrap(new byte[] {42}), SIZE - 1);
            }
            Path dest = dir.resolve("large.copy");
            long start = System.nanoTime();
            CollectSummary s = rig.get("/large.bin", dest, false, "block-size=4m");
            assertTrue(s.complete() && s.verified(), s.toText());
            assertEquals(SIZE, s.bytes());
            assertEquals(257, s.blocks());
            assertEquals(TreeDigests.sha256(file), TreeDigests.sha256(dest));
            System.out.printf("LargeStripedIT: %d bytes via 3 relays in %.1f s: %s retries %s%n", SIZE,
                    (System.nanoTime() - start) / 1e9, s.blocksBySource(), s.retries());
        }
    }
}

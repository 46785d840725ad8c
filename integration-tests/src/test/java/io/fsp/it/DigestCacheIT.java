package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.collect.CollectSummary;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import io.fsp.metrics.Scrape;
import io.fsp.testkit.relay.Fault;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server keeps the digests of a large file's blocks between transfers (digest-cache): a file served again is
 * not hashed again, and a file rewritten behind an unchanged size and modification time is hashed again, so its
 * new bytes verify. Real server, relays and client over loopback; counted by the server's metrics.
 */
@Timeout(300)
class DigestCacheIT {
    private static final int FILE_BYTES = 3 * 1024 * 1024 + 12345;
    private static final int BLOCKS = 13; // of 256 KiB

    @TempDir
    Path dir;

    @Test
    void aFileServedAgainIsNotHashedAgainUntilItChanges() throws Exception {
        try (StripeRig rig = StripeRig.startWithMetrics(dir.resolve("rig"), 64L << 20, new Fault[0], new Fault[0])) {
            Path file = rig.root().resolve("one.bin");
            TreeDigests.random(file, FILE_BYTES, 1);
            FileTime modified = Files.getLastModifiedTime(file);
            awaitSettled(file);

            assertVerified(rig, file, "first");
            assertEquals(0, reused(rig), "a file served for the first time is hashed");
            assertVerified(rig, file, "second");
            assertEquals(BLOCKS, reused(rig), "served again unchanged: every block's digest is the one kept");
            assertVerified(rig, file, "direct", true);
            assertEquals(2 * BLOCKS, reused(rig), "the data connection's blocks too");

            // New bytes, same size, the old modification time: only the change time tells.
            TreeDigests.random(file, FILE_BYTES, 2);
            Files.setLastModifiedTime(file, modified);
            assertVerified(rig, file, "rewritten");
            assertEquals(2 * BLOCKS, reused(rig), "a rewritten file is hashed again");
            assertVerified(rig, file, "rewritten, again");
            assertEquals(2 * BLOCKS, reused(rig), "a file changed just now is not kept: a write in the same clock tick"
                    + " could leave its change time as it is");
            awaitSettled(file);
            assertVerified(rig, file, "settled");
            assertVerified(rig, file, "settled, again");
            assertEquals(3 * BLOCKS, reused(rig), "kept again once settled, for the new bytes");
            for (String name : new String[] {"small blocks", "small blocks, again"}) {
                Path dest = dir.resolve(name.replaceAll("[^a-z]", "-") + ".copy");
                CollectSummary s = rig.get("/one.bin", dest, false, "block-size=32k");
                assertTrue(s.complete() && s.verified(), name + ": " + s.toText());
                assertArrayEquals(Files.readAllBytes(file), Files.readAllBytes(dest), name);
            }
            assertEquals(3 * BLOCKS, reused(rig), "blocks under 64 KiB cost less to hash than to look at the file");
        }
    }

    private void assertVerified(StripeRig rig, Path file, String name) throws Exception {
        assertVerified(rig, file, name, false);
    }

    private void assertVerified(StripeRig rig, Path file, String name, boolean direct) throws Exception {
        Path dest = dir.resolve(name.replaceAll("[^a-z]", "-") + ".copy");
        CollectSummary s = direct ? rig.get("/one.bin", dest, true, "block-size=256k", "use-relays=off")
                : rig.get("/one.bin", dest, false, "block-size=256k");
        assertTrue(s.complete() && s.verified(), name + ": " + s.toText());
        assertEquals(BLOCKS, s.blocks(), s.toText());
        assertArrayEquals(Files.readAllBytes(file), Files.readAllBytes(dest), name);
    }

    private static double reused(StripeRig rig) throws Exception {
        return Scrape.of(rig.server().metricsAddress().orElseThrow()).get("fsp_server_block_digests_reused_total");
    }

    /** Waits until the file's change time is older than the two seconds after which the server keeps digests. */
    private static void awaitSettled(Path file) throws Exception {
        long changed = ((FileTime) Files.getAttribute(file, "unix:ctime", LinkOption.NOFOLLOW_LINKS))
                .to(TimeUnit.MILLISECONDS);
        long wait = changed + 2100 - System.currentTimeMillis();
        if (wait > 0) {
            Thread.sleep(wait);
        }
    }
}

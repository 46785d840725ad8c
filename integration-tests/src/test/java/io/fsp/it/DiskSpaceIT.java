package io.fsp.it;

import static io.fsp.it.harness.Commands.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fsp.client.collect.CollectSummary;
import io.fsp.client.collect.Collector;
import io.fsp.client.collect.NotEnoughSpaceException;
import io.fsp.client.verify.VerificationMode;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import io.fsp.testkit.relay.Fault;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A destination file system without room: a real ext4 image of 24 MiB, loop-mounted (root only). A full disk is
 * reported as such, at once, never as blocks that "could not be verified from any source".
 */
class DiskSpaceIT {
    @TempDir
    Path dir;
    private Path mnt;
    private StripeRig rig;

    @BeforeEach
    void mount() throws Exception {
        assumeTrue(run("id", "-u").trim().equals("0"), "needs root to mount a loop ext4 image: skipped");
        Path image = dir.resolve("small.img");
        mnt = Files.createDirectory(dir.resolve("mnt"));
        run("truncate", "-s", "24M", image.toString());
        run("mkfs.ext4", "-q", "-F", "-b", "4096", "-m", "0", image.toString());
        Process mount = new ProcessBuilder("mount", "-o", "loop", image.toString(), mnt.toString()).redirectErrorStream(true).start();
        String out = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assumeTrue(mount.waitFor(30, TimeUnit.SECONDS) && mount.exitValue() == 0, "mount -o loop failed: " + out.trim() + ": skipped");
        rig = StripeRig.start(dir.resolve("rig"), 64L << 20, new Fault[0], new Fault[0], new Fault[0]);
    }

    @AfterEach
    void unmount() throws Exception {
        if (rig != null) {
            rig.close();
        }
        if (mnt != null && new ProcessBuilder("umount", mnt.toString()).start().waitFor() != 0) {
            new ProcessBuilder("umount", "-l", mnt.toString()).start().waitFor();
        }
    }

    @Test
    void aTransferLargerThanTheFreeSpaceIsRefusedBeforeItsFirstByte() throws Exception {
        TreeDigests.random(rig.root().resolve("big.bin"), 40 * 1024 * 1024, 31);
        long freeBefore = Files.getFileStore(mnt).getUsableSpace();
        Path dest = mnt.resolve("big.bin");
        NotEnoughSpaceException e = assertThrows(NotEnoughSpaceException.class, () -> new Collector(rig.options("/big.bin",
                dest, VerificationMode.FIVER, false, Duration.ofSeconds(10), "block-size=1m")).run());
        assertTrue(e.getMessage().contains("not enough space for " + dest) && e.getMessage().contains("41,943,040 bytes still to write"),
                e.getMessage());
        assertTrue(freeBefore - Files.getFileStore(mnt).getUsableSpace() < (1 << 20), "nothing was written");
    }

    /**
     * Two transfers that each fit, but not both: each either completes verified or fails saying the disk is full
     * (before its first byte, or when a write found no space); at least one fails; neither blames its sources.
     */
    @Test
    void aDiskThatFillsDuringTransfersIsReportedAsFull() throws Exception {
        TreeDigests.random(rig.root().resolve("a.bin"), 14 * 1024 * 1024, 32);
        TreeDigests.random(rig.root().resolve("b.bin"), 14 * 1024 * 1024, 33);
        List<CompletableFuture<String>> runs = new ArrayList<>();
        for (String name : List.of("a.bin", "b.bin")) {
            runs.add(CompletableFuture.supplyAsync(() -> {
                try {
                    CollectSummary s = new Collector(rig.options("/" + name, mnt.resolve(name), VerificationMode.FIVER, false,
                            Duration.ofSeconds(10), "block-size=256k")).run();
                    return s.complete() && s.verified() ? "ok" : s.toText();
                } catch (NotEnoughSpaceException e) {
                    return "refused: " + e.getMessage();
                } catch (Exception e) {
                    return "failed: " + e;
                }
            }));
        }
        List<String> outcomes = new ArrayList<>();
        for (CompletableFuture<String> r : runs) {
            outcomes.add(r.get(120, TimeUnit.SECONDS));
        }
        System.out.println("outcomes: " + outcomes); // which path each took, for whoever reads the test's output
        for (String o : outcomes) {
            assertTrue(o.equals("ok") || o.startsWith("refused: not enough space") || o.contains("file system is full"), o);
            assertFalse(o.contains("could not be verified from any source"), o);
        }
        assertTrue(outcomes.stream().anyMatch(o -> !o.equals("ok")), "24 MiB cannot hold 28 MiB: " + outcomes);
        for (String name : List.of("a.bin", "b.bin")) {
            if (outcomes.get(name.equals("a.bin") ? 0 : 1).equals("ok")) {
                assertEquals(TreeDigests.sha256(rig.root().resolve(name)), TreeDigests.sha256(mnt.resolve(name)));
            }
        }
    }
}

package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.collect.CollectSummary;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import io.fsp.relay.FspRelay;
import io.fsp.testkit.relay.Fault;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server keeps its authenticated relay connections between transfers (opened at start, given back after
 * each transfer), and a kept connection that died meanwhile is replaced without the transfer noticing.
 */
class RelayConnectionReuseIT {
    @TempDir
    Path dir;
    StripeRig rig;
    Path source;

    @BeforeEach
    void start() throws Exception {
        rig = StripeRig.start(dir.resolve("rig"), 64L << 20, new Fault[0], new Fault[0]);
        source = rig.root().resolve("data.bin");
        TreeDigests.random(source, 2 * 1024 * 1024 + 77, 11);
    }

    @AfterEach
    void stop() {
        if (rig != null) {
            rig.close();
        }
    }

    @Test
    void relayConnectionsAreOpenedAtStartAndReusedByEveryTransfer() throws Exception {
        for (FspRelay r : rig.relays()) {
            awaitEquals(1, r::connections, "the server's connection, opened at start");
        }
        // Blocks go to whichever relay can take one first, so one transfer of nine blocks may place them all on one
        // relay: both must take part over the runs.
        Map<String, Long> blocks = new HashMap<>();
        for (int run = 0; run < 5; run++) {
            get("copy" + run).blocksBySource().forEach((source, n) -> blocks.merge(source, n, Long::sum));
            for (FspRelay r : rig.relays()) {
                // Without reuse every transfer would leave one more kept connection behind.
                awaitEquals(1, r::connections, "connections at the relay after transfer " + run);
            }
        }
        assertTrue(blocks.getOrDefault("relay:0", 0L) > 0 && blocks.getOrDefault("relay:1", 0L) > 0, blocks.toString());
    }

    @Test
    void aRestartedRelayIsReachedAgainOnANewConnection() throws Exception {
        get("before");
        FspRelay restarted = rig.restartRelay(0);
        // Blocks go to whichever relay can take one first, so a transfer of nine blocks may place them all on the
        // other relay: the restarted one must take part in one of a few.
        CollectSummary s = get("after");
        for (int run = 1; run < 5 && s.blocksBySource().getOrDefault("relay:0", 0L) == 0; run++) {
            s = get("after" + run);
        }
        assertTrue(s.blocksBySource().getOrDefault("relay:0", 0L) > 0,
                "the restarted relay took part in a transfer: " + s.toText());
        awaitEquals(1, restarted::connections, "the new connection is kept");
    }

    private CollectSummary get(String name) throws Exception {
        Path dest = dir.resolve("out").resolve(name);
        Files.createDirectories(dest.getParent());
        CollectSummary s = rig.get("/data.bin", dest, false, "block-size=256k");
        assertTrue(s.complete() && s.verified(), s.toText());
        assertEquals(TreeDigests.sha256(source), TreeDigests.sha256(dest));
        return s;
    }

    private static void awaitEquals(int expected, IntSupplier actual, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (actual.getAsInt() != expected && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(expected, actual.getAsInt(), what);
    }
}

package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.collect.CollectSummary;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import io.fsp.testkit.net.WireTap;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An attacker on the clear links (docs/protocol.md §3.7) between relay 0 and its peers changes one BLOCK frame on its
 * way to the client: a block byte (left to the block's own checks) or a byte of the frame's tag (the link ends). Either
 * way `fsp get` ends with every byte verified, having fetched the block again, and says so.
 */
class ClearLinkIT {
    private static final int SIZE = 20 * 64 * 1024 + 999; // 21 blocks of 64 KiB; cyclic: seq % 3 on relay seq % 3
    /** BLOCK frame: type 1, length 4, tag 16, id 4, transfer 8, seq 8, then the block's bytes. */
    private static final int BLOCK_BYTES = 5 + 16 + 20;
    private static final int BLOCK = 0x81;

    @TempDir
    Path dir;

    /**
     * Changes byte {@code at} (counted from the start of the frame) of the first BLOCK frame a clear link carries
     * from the relay, on the first link that carries one: the client's. TLS connections pass untouched.
     */
    private static WireTap.Change firstBlockFrame(int at) {
        Map<WireTap.Connection, long[]> walks = new ConcurrentHashMap<>(); // frame start, frame end, type
        AtomicBoolean done = new AtomicBoolean();
        return (c, toRelay, offset, bytes, n) -> {
            if (toRelay || c.tls() || done.get()) {
                return;
            }
            byte[] all = c.fromTarget(); // recorded before the change, up to and with this chunk
            long[] walk = walks.computeIfAbsent(c, k -> new long[] {0, -1});
            while (true) {
                long start = walk[0];
                if (start + 5 > all.length) {
                    return;
                }
                int type = all[(int) start] & 0xff;
                long length = bodyLength(all, start);
                long target = start + at;
                if (type == BLOCK && target >= offset && target < offset + n && done.compareAndSet(false, true)) {
                    bytes[(int) (target - offset)] ^= 0x01;
                    return;
                }
                long next = start + 5 + 16 + length;
                if (next > offset + n) {
                    return;
                }
                walk[0] = next;
            }
        };
    }

    /** The body length in the header of the frame at {@code start} of a recorded stream (u32 after the type). */
    static long bodyLength(byte[] stream, long start) {
        return java.nio.ByteBuffer.wrap(stream, (int) start + 1, 4).getInt() & 0xFFFF_FFFFL;
    }

    private CollectSummary fetchThroughTap(WireTap.Change change) throws Exception {
        WireTap[] tap = new WireTap[1];
        try (StripeRig rig = StripeRig.startBehind(dir.resolve("rig"), 64L << 20, address -> {
            if (tap[0] != null) {
                return address; // relays 1 and 2: direct
            }
            try {
                tap[0] = new WireTap(address, change);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return tap[0].address();
        }, new io.fsp.testkit.relay.Fault[0], new io.fsp.testkit.relay.Fault[0], new io.fsp.testkit.relay.Fault[0])) {
            Path file = rig.root().resolve("data.bin");
            TreeDigests.random(file, SIZE, 17);
            Path dest = dir.resolve("copy.bin");
            CollectSummary s = rig.get("/data.bin", dest, false, "block-size=64k", "strategy=cyclic");
            assertTrue(s.complete() && s.verified(), s.toText());
            assertEquals(TreeDigests.sha256(file), TreeDigests.sha256(dest), "byte-identical");
            assertTrue(tap[0].connections().stream().anyMatch(c -> !c.tls()), "relay 0 was reached over clear links");
            return s;
        } finally {
            if (tap[0] != null) {
                tap[0].close();
            }
        }
    }

    /** Blocks in clear (cipher=none) never cross a link, either way: on one they would be plaintext on the wire. */
    @Test
    void blocksInClearStayOnTls() throws Exception {
        WireTap[] tap = new WireTap[1];
        try (StripeRig rig = StripeRig.startBehind(dir.resolve("rig"), 64L << 20, address -> {
            if (tap[0] != null) {
                return address;
            }
            try {
                tap[0] = new WireTap(address, WireTap.Change.NONE);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return tap[0].address();
        }, new io.fsp.testkit.relay.Fault[0], new io.fsp.testkit.relay.Fault[0], new io.fsp.testkit.relay.Fault[0])) {
            Path file = rig.root().resolve("data.bin");
            TreeDigests.random(file, SIZE, 19);
            Path dest = dir.resolve("copy.bin");
            CollectSummary s = rig.get("/data.bin", dest, false, "block-size=64k", "strategy=cyclic", "cipher=none");
            assertTrue(s.complete() && s.verified(), s.toText());
            assertEquals(TreeDigests.sha256(file), TreeDigests.sha256(dest), "byte-identical");
            byte[] plaintext = java.util.Arrays.copyOfRange(java.nio.file.Files.readAllBytes(file), 64 * 1024, 64 * 1024 + 64);
            assertTrue(tap[0].streamsContaining(plaintext) == 0, "no plaintext on any stream of relay 0");
        } finally {
            if (tap[0] != null) {
                tap[0].close();
            }
        }
    }

    @Test
    void aBlockByteChangedOnTheWireIsCaughtAndTheBlockFetchedAgain() throws Exception {
        CollectSummary s = fetchThroughTap(firstBlockFrame(BLOCK_BYTES + 100));
        assertTrue(s.retries().keySet().stream().anyMatch(k -> k.startsWith("relay:0: ")), "caught: " + s.toText());
        assertEquals(1, s.recoveries().get("relay").blocks(), "fetched again from relay 0: " + s.toText());
    }

    @Test
    void aFrameTagChangedOnTheWireEndsTheLinkAndTheBlocksComeFromElsewhere() throws Exception {
        CollectSummary s = fetchThroughTap(firstBlockFrame(5 + 3));
        assertTrue(s.retries().keySet().stream().anyMatch(k -> k.startsWith("relay:0: ")), "the link ended: " + s.toText());
    }
}

package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.cli.ExitCodes;
import io.fsp.crypto.RecipientKey;
import io.fsp.it.harness.FspCommand;
import io.fsp.it.harness.FspCommand.Result;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import io.fsp.testkit.net.WireTap;
import io.fsp.testkit.relay.Fault;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An attacker on the origin's uplink to relay 0 changes a byte of a sealed block in a PUT_BLOCK on the clear link and
 * rewrites the block's wire checksum to match, so that the relay's own check of the block passes (docs/protocol.md
 * §3.7). The link's tag covers the block bytes: the relay refuses the frame, the server places the block elsewhere,
 * and {@code fsp evacuate} exits 0 only for copies that can be collected: with the origin gone, {@code fsp collect}
 * verifies every byte.
 */
@Timeout(300)
class TamperedPlacementIT {
    private static final int PUT_BLOCK = 0x11;
    /** A clear link toward the relay starts with "FSPC" and the 16-byte ticket. */
    private static final int PREAMBLE = 4 + 16;
    /** Frame: type 1, length 4, tag 16; PUT_BLOCK body: id 4, transfer 8, seq 8, then the block. */
    private static final int BLOCK_START = 5 + 16 + 20;
    private static final int CRC32C_LENGTH = 4;

    @TempDir
    Path dir;

    /**
     * Flips a byte 100 bytes into the block of the first PUT_BLOCK a clear link carries toward the relay, and writes
     * over the block's last four bytes the CRC32C of the changed block, as an attacker who knows the format would.
     */
    static WireTap.Change firstPutBlockChanged(AtomicBoolean changed) {
        Map<WireTap.Connection, long[]> walks = new ConcurrentHashMap<>(); // next frame's start; the changed frame
        return (c, toRelay, offset, bytes, n) -> {
            if (!toRelay || c.tls()) {
                return;
            }
            byte[] all = c.toTarget(); // as it arrived, up to and with this chunk
            long[] walk = walks.computeIfAbsent(c, k -> new long[] {PREAMBLE, -1});
            while (walk[1] < 0) {
                long start = walk[0];
                if (start + 5 > all.length) {
                    return;
                }
                int type = all[(int) start] & 0xff;
                long length = ClearLinkIT.bodyLength(all, start);
                if (type == PUT_BLOCK && !changed.get()) {
                    walk[1] = start;
                    changed.set(true);
                    break;
                }
                walk[0] = start + 5 + 16 + length;
            }
            long frame = walk[1];
            long length = ClearLinkIT.bodyLength(all, frame);
            long block = frame + BLOCK_START;
            long flip = block + 100;
            long crc = frame + 5 + 16 + length - CRC32C_LENGTH;
            if (flip >= offset && flip < offset + n) {
                bytes[(int) (flip - offset)] ^= 0x01;
            }
            if (crc + CRC32C_LENGTH > offset && crc < offset + n && crc <= all.length) {
                CRC32C sum = new CRC32C();
                byte[] changedBlock = java.util.Arrays.copyOfRange(all, (int) block, (int) crc);
                changedBlock[(int) (flip - block)] ^= 0x01;
                sum.update(changedBlock);
                long value = sum.getValue();
                for (int i = 0; i < CRC32C_LENGTH; i++) {
                    long at = crc + i;
                    if (at >= offset && at < offset + n) {
                        bytes[(int) (at - offset)] = (byte) (value >>> (24 - 8 * i));
                    }
                }
            }
        };
    }

    @Test
    void aBlockChangedOnItsWayToARelayIsPlacedElsewhereAndCollected() throws Exception {
        RecipientKey safeSite = RecipientKey.generate("safe site");
        Path identity = dir.resolve("keys/identity");
        Path recipient = dir.resolve("keys/recipient.pub");
        safeSite.writeIdentity(identity, false);
        safeSite.writePublic(recipient, false);
        Path manifest = dir.resolve("carry/evacuation.sealed");
        Files.createDirectories(manifest.getParent());
        AtomicBoolean changed = new AtomicBoolean();
        WireTap[] tap = new WireTap[1];
        try (StripeRig rig = StripeRig.startBehind(dir.resolve("rig"), 64L << 20, address -> {
            if (tap[0] != null) {
                return address; // relays 1 and 2: direct
            }
            try {
                tap[0] = new WireTap(address, firstPutBlockChanged(changed));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return tap[0].address();
        }, new Fault[0], new Fault[0], new Fault[0])) {
            Path file = rig.root().resolve("data.bin");
            TreeDigests.random(file, 24 * 64 * 1024 + 999, 23);
            ProcessBuilder pb = FspCommand.process(List.of("evacuate",
                    "fsp://" + StripeRig.USER + "@127.0.0.1:" + rig.port() + "/data.bin", "--trust",
                    rig.server().fingerprint().toString(), "--manifest", manifest.toString(), "--recipient",
                    recipient.toString(), "--retain", "2h", "--replicas", "1", "--block-size", "64k"))
                    .redirectOutput(dir.resolve("evacuate.out").toFile()).redirectError(dir.resolve("evacuate.err").toFile());
            pb.environment().put("FSP_PASSWORD", StripeRig.PASSWORD);
            Process p = pb.start();
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "fsp evacuate did not end");
            Result e = new Result(p.exitValue(), Files.readString(dir.resolve("evacuate.out")),
                    Files.readString(dir.resolve("evacuate.err")));
            assertTrue(changed.get(), "a PUT_BLOCK crossed the tap on a clear link and was changed");
            assertEquals(ExitCodes.OK, e.exit(), e.toString());

            String origin = rig.server().fingerprint().toString();
            rig.server().close(); // the origin is lost: what is out must be what left
            Path bag = dir.resolve("archive");
            Result c = FspCommand.run(List.of("collect", manifest.toString(), "-o", bag.toString(), "--identity",
                    identity.toString(), "--trust-origin", origin));
            assertEquals(ExitCodes.OK, c.exit(), c.toString());
            assertEquals(TreeDigests.sha256(file), TreeDigests.sha256(bag.resolve("data/data.bin")), "byte-identical");
        } finally {
            if (tap[0] != null) {
                tap[0].close();
            }
        }
    }
}

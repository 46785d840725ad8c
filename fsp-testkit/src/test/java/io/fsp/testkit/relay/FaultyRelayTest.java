package io.fsp.testkit.relay;

import static io.fsp.relay.RelayHarness.block;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.block.Block;
import io.fsp.block.BlockFormatException;
import io.fsp.block.BlockLimits;
import io.fsp.block.Blocks;
import io.fsp.block.stage.BlockPipeline;
import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.crypto.TransferKey;
import io.fsp.relay.RelayHarness;
import io.fsp.relaylink.RelayClosedException;
import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayConnectionConfig;
import io.fsp.relaylink.RelayTimeoutException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Each fault is visible to a client, and never to the pushing server. */
@Timeout(60)
class FaultyRelayTest {
    @TempDir
    Path store;
    private RelayHarness h;

    @AfterEach
    void stop() {
        if (h != null) {
            h.close();
        }
    }

    private static byte[] take(CompletableFuture<ByteBuf> f) throws Exception {
        ByteBuf b = f.get(10, TimeUnit.SECONDS);
        try {
            return ByteBufUtil.getBytes(b);
        } finally {
            b.release();
        }
    }

    /** Starts a relay with {@code faults} and places blocks 0..n-1 (10 KB each) of a new transfer. */
    private RelayHarness.Opened placed(int n, Fault... faults) throws Exception {
        h = new RelayHarness(store, 64L << 20, 64L << 20, FaultPlan.of(faults).handlers(),
                RelayConnectionConfig.DEFAULT.withRequestTimeout(Duration.ofSeconds(5)));
        try (RelayConnection server = h.server()) {
            RelayHarness.Opened t = h.open(server);
            for (long seq = 0; seq < n; seq++) {
                server.putBlock(t.id(), seq, Unpooled.wrappedBuffer(block(10_000, seq))).get(5, TimeUnit.SECONDS);
            }
            return t;
        }
    }

    @Test
    void flipBitCorruptsExactlyOneBitOfThatBlockOnly() throws Exception {
        RelayHarness.Opened t = placed(4, new Fault.FlipBit(2));
        try (RelayConnection client = h.client()) {
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            for (long seq = 0; seq < 4; seq++) {
                byte[] got = take(client.getBlock(t.id(), seq));
                byte[] sent = block(10_000, seq);
                int bitsDiffering = 0;
                for (int i = 0; i < sent.length; i++) {
                    bitsDiffering += Integer.bitCount((got[i] ^ sent[i]) & 0xff);
                }
                assertEquals(seq == 2 ? 1 : 0, bitsDiffering, "block " + seq);
            }
        }
        // The relay still holds the true bytes: only what it serves is corrupted.
        ByteBuf held = h.relay.store().get(t.id(), 2).get().orElseThrow();
        assertArrayEquals(block(10_000, 2), ByteBufUtil.getBytes(held));
        held.release();
    }

    @Test
    void duplicateSendsTheBlockTwiceAndTheClientStaysInStep() throws Exception {
        RelayHarness.Opened t = placed(3, new Fault.Duplicate(1));
        try (RelayConnection client = h.client()) {
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            assertArrayEquals(block(10_000, 1), take(client.getBlock(t.id(), 1)));
            assertArrayEquals(block(10_000, 0), take(client.getBlock(t.id(), 0)));
            assertArrayEquals(block(10_000, 2), take(client.getBlock(t.id(), 2)));
        }
    }

    @Test
    void foreignBlockAnswersWithAnotherTransfersBytes() throws Exception {
        RelayHarness.Opened t = placed(2, new Fault.ForeignBlock(0));
        byte[] other = block(10_000, 99);
        try (RelayConnection server = h.server()) {
            RelayHarness.Opened o = h.open(server);
            server.putBlock(o.id(), 5, Unpooled.wrappedBuffer(other)).get(5, TimeUnit.SECONDS);
        }
        try (RelayConnection client = h.client()) {
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            assertArrayEquals(other, take(client.getBlock(t.id(), 0)));
            assertArrayEquals(block(10_000, 1), take(client.getBlock(t.id(), 1)));
        }
    }

    @Test
    void stalledRelayAcceptsTlsButNeverAnswersAClient() throws Exception {
        placed(1, new Fault.Stall());
        RelayConnectionConfig impatient = new RelayConnectionConfig(Duration.ofMillis(500), Duration.ofMillis(500),
                Duration.ofSeconds(5), 1 << 20, io.fsp.relaylink.wire.RelayLimits.DEFAULT);
        ExecutionException e = assertThrows(ExecutionException.class, () -> h.connect(Optional.empty(), impatient));
        assertInstanceOf(RelayTimeoutException.class, e.getCause());
        // The trusted server is still served.
        try (RelayConnection server = h.server()) {
            h.open(server);
        }
    }

    @Test
    void closeAfterCutsTheConnectionMidBlock() throws Exception {
        RelayHarness.Opened t = placed(1, new Fault.CloseAfter(200));
        try (RelayConnection client = h.client()) {
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> client.getBlock(t.id(), 0).get(10, TimeUnit.SECONDS));
            assertInstanceOf(RelayClosedException.class, e.getCause());
            assertFalse(client.isOpen());
        }
    }

    @Test
    void throttleSlowsWhatAClientReceives() throws Exception {
        RelayHarness.Opened t = placed(15, new Fault.Throttle(100_000));
        try (RelayConnection client = h.client()) {
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            long start = System.nanoTime();
            for (long seq = 0; seq < 15; seq++) {
                assertArrayEquals(block(10_000, seq), take(client.getBlock(t.id(), seq)));
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(millis >= 1000, "150 KB at 100 KB/s took " + millis + " ms");
        }
    }

    @Test
    void tamperedBlockPassesItsWireChecksumButNotDecryption() throws Exception {
        h = new RelayHarness(store, 64L << 20, 64L << 20, FaultPlan.of(new Fault.Tamper(0)).handlers(),
                RelayConnectionConfig.DEFAULT, RelayHarness.POLICY, true);
        RelayHarness.Opened t;
        TransferKey key;
        byte[] sent;
        try (RelayConnection server = h.server()) {
            t = h.open(server);
            key = TransferKey.generate(t.id().value(), 128, new SecureRandom());
            try (BlockPipeline sender = BlockPipeline.builder().transferId(t.id().value())
                    .checksum(ChecksumAlgorithm.CRC32C).noCompression().encryption(key).build()) {
                ByteBuf data = Unpooled.wrappedBuffer(block(10_000, 7));
                Block b = sender.seal(data, 0, "f", true).block();
                data.release();
                assertEquals(0, b.header().sequence());
                sent = ByteBufUtil.getBytes(b.content());
                server.putBlock(t.id(), 0, b.content()).get(5, TimeUnit.SECONDS);
            }
        }
        try (RelayConnection client = h.client();
             BlockPipeline receiver = BlockPipeline.builder().transferId(t.id().value())
                     .checksum(ChecksumAlgorithm.CRC32C).encryption(key).build()) {
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            ByteBuf got = client.getBlock(t.id(), 0).get(5, TimeUnit.SECONDS);
            try {
                assertFalse(java.util.Arrays.equals(sent, ByteBufUtil.getBytes(got)));
                Block parsed = Blocks.parse(got, BlockLimits.DEFAULT); // the wire checksum matches
                try {
                    assertThrows(BlockFormatException.class, () -> receiver.open(parsed).release());
                } finally {
                    parsed.release();
                }
            } finally {
                got.release();
            }
        }
    }

    @Test
    void faultsParseFromTheCommandLineForm() {
        assertEquals(FaultPlan.of(new Fault.FlipBit(3), new Fault.Tamper(2), new Fault.CloseAfter(1024), new Fault.Stall(),
                        new Fault.Throttle(5000), new Fault.Duplicate(1), new Fault.ForeignBlock(0)),
                FaultPlan.parse(List.of("flip-bit:3", "tamper:2", "close-after:1024", "stall", "THROTTLE:5000", "duplicate:1",
                        "foreign-block:0")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FaultPlan.parse(List.of("flip-bit")));
        assertTrue(e.getMessage().startsWith("'flip-bit': missing number"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> FaultPlan.parse(List.of("melt")));
        assertThrows(IllegalArgumentException.class, () -> FaultPlan.parse(List.of("throttle:0")));
    }
}

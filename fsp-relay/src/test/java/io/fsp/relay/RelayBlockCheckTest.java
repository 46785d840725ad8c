package io.fsp.relay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.block.Block;
import io.fsp.block.BlockLimits;
import io.fsp.block.Blocks;
import io.fsp.block.stage.BlockPipeline;
import io.fsp.block.stage.OpenedBlock;
import io.fsp.block.stage.SealedBlock;
import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.crypto.TransferKey;
import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayConnectionConfig;
import io.fsp.relaylink.RelayRefusedException;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A relay that checks pushed FSP blocks: sound ones pass byte-identical, damaged or misplaced ones are refused. */
@Timeout(60)
class RelayBlockCheckTest {
    private static final String KNOWN_TEXT = "The quick brown fox jumps over the lazy relay. ";
    @TempDir
    Path store;
    private RelayHarness h;
    private RelayConnection server;
    private RelayConnection client;
    private RelayHarness.Opened t;
    private BlockPipeline sender;
    private TransferKey key;

    @BeforeEach
    void start() throws Exception {
        // Nothing in memory: every stored block lands in a file we can inspect.
        h = new RelayHarness(store, 64L << 20, 0, ConnectionHandlers.NONE,
                RelayConnectionConfig.DEFAULT.withRequestTimeout(Duration.ofSeconds(5)), RelayHarness.POLICY, true);
        server = h.server();
        client = h.client();
        t = h.open(server);
        client.authorize(t.token()).get(5, TimeUnit.SECONDS);
        key = TransferKey.generate(t.id().value(), 128, new SecureRandom());
        sender = BlockPipeline.builder().transferId(t.id().value()).checksum(ChecksumAlgorithm.CRC32C)
                .digest(ChecksumAlgorithm.SHA256).noCompression()
                .encryption(key).build();
    }

    @AfterEach
    void stop() {
        sender.close();
        client.close();
        server.close();
        h.close();
    }

    private Block seal(String text) {
        ByteBuf data = Unpooled.copiedBuffer(text, StandardCharsets.UTF_8);
        try {
            SealedBlock s = sender.seal(data, 0, "notes.txt", true);
            return s.block();
        } finally {
            data.release();
        }
    }

    private RelayErrorCode refused(long seq, ByteBuf bytes) {
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> server.putBlock(t.id(), seq, bytes).get(5, TimeUnit.SECONDS));
        assertInstanceOf(RelayRefusedException.class, e.getCause());
        return ((RelayRefusedException) e.getCause()).code();
    }

    @Test
    void soundEncryptedBlocksAreStoredAndServedByteIdenticalWithoutPlaintext() throws Exception {
        List<byte[]> wire = new ArrayList<>();
        List<Long> seqs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Block b = seal(KNOWN_TEXT.repeat(200 + i));
            wire.add(ByteBufUtil.getBytes(b.content()));
            seqs.add(b.header().sequence());
            server.putBlock(t.id(), b.header().sequence(), b.content()).get(5, TimeUnit.SECONDS);
        }
        // The relay's disk holds ciphertext only.
        try (Stream<Path> files = Files.walk(store)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String content = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                assertFalse(content.contains("quick brown fox"), f + " holds plaintext");
            }
        }
        try (BlockPipeline receiver = BlockPipeline.builder().transferId(t.id().value())
                .checksum(ChecksumAlgorithm.CRC32C).digest(ChecksumAlgorithm.SHA256)
                .encryption(key).build()) {
            for (int i = 0; i < 5; i++) {
                ByteBuf got = client.getBlock(t.id(), seqs.get(i)).get(5, TimeUnit.SECONDS);
                try {
                    assertArrayEquals(wire.get(i), ByteBufUtil.getBytes(got));
                    Block block = Blocks.parse(got, BlockLimits.DEFAULT);
                    OpenedBlock opened = receiver.open(block);
                    try {
                        assertEquals(KNOWN_TEXT.repeat(200 + i), opened.content().toString(StandardCharsets.UTF_8));
                    } finally {
                        opened.release();
                        block.release();
                    }
                } finally {
                    got.release();
                }
            }
        }
    }

    @Test
    void blockWithAFlippedBitIsRefused() throws Exception {
        Block b = seal(KNOWN_TEXT);
        ByteBuf damaged = Unpooled.copiedBuffer(b.content());
        damaged.setByte(30, damaged.getByte(30) ^ 0x04);
        long seq = b.header().sequence();
        b.release();
        assertEquals(RelayErrorCode.BAD_BLOCK, refused(seq, damaged));
        assertTrue(h.relay.store().status(t.id()).orElseThrow().blocks() == 0);
    }

    @Test
    void blockPutUnderAnotherSequenceNumberIsRefused() throws Exception {
        Block b = seal(KNOWN_TEXT);
        assertEquals(RelayErrorCode.BAD_BLOCK, refused(b.header().sequence() + 1, b.content()));
    }

    @Test
    void blockOfAnotherTransferIsRefused() throws Exception {
        RelayHarness.Opened other = h.open(server);
        Block b = seal(KNOWN_TEXT);
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> server.putBlock(other.id(), b.header().sequence(), b.content()).get(5, TimeUnit.SECONDS));
        assertEquals(RelayErrorCode.BAD_BLOCK, ((RelayRefusedException) e.getCause()).code());
    }

    @Test
    void clearBlockIsRefusedSoTheRelayNeverHoldsPlaintext() throws Exception {
        try (BlockPipeline clear = BlockPipeline.builder().transferId(t.id().value())
                .checksum(ChecksumAlgorithm.CRC32C).noCompression().build()) {
            ByteBuf data = Unpooled.copiedBuffer(KNOWN_TEXT, StandardCharsets.UTF_8);
            Block b = clear.seal(data, 0, "notes.txt", true).block();
            data.release();
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> server.putBlock(t.id(), b.header().sequence(), b.content()).get(5, TimeUnit.SECONDS));
            assertEquals(RelayErrorCode.BAD_BLOCK, ((RelayRefusedException) e.getCause()).code());
            assertTrue(e.getCause().getMessage().contains("not encrypted"), e.getCause().getMessage());
        }
        assertEquals(0, h.relay.store().used());
    }

    @Test
    void bytesThatAreNoBlockAreRefusedAndTheConnectionGoesOn() throws Exception {
        assertEquals(RelayErrorCode.BAD_BLOCK, refused(0, Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4})));
        assertEquals(RelayErrorCode.BAD_BLOCK, refused(0, Unpooled.wrappedBuffer(new byte[5000])));
        Block b = seal(KNOWN_TEXT);
        server.putBlock(t.id(), b.header().sequence(), b.content()).get(5, TimeUnit.SECONDS);
        assertEquals(1, h.relay.store().status(t.id()).orElseThrow().blocks());
    }
}

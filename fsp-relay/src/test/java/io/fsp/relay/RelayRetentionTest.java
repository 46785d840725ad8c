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
import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.crypto.TransferKey;
import io.fsp.relaylink.BlockNotFoundException;
import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayConnectionConfig;
import io.fsp.relaylink.RelayRefusedException;
import io.fsp.relay.store.RetainedTransfer;
import io.fsp.relay.store.StoreConfig;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.fsp.relaylink.wire.RelayMessage;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TokenKey;
import io.fsp.token.TokenScope;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Retained transfers over real TLS, on a real store directory: kept on disk until their expiry whatever the idle
 * TTL, across a restart of the relay (whose clients then fetch with the tokens they had), counted into the quota
 * when restored, refused beyond the relay's longest retention, and never made to wait for space.
 */
@Timeout(60)
class RelayRetentionTest {
    private static final long QUOTA = 8L << 20;
    private static final Duration TTL = Duration.ofMinutes(10);
    private static final Duration MAX_RETAIN = Duration.ofDays(7);
    private static final int BLOCK_DATA = 64 * 1024;
    @TempDir
    Path store;
    private RelayHarness h;

    @AfterEach
    void stop() {
        if (h != null) {
            h.close();
        }
    }

    /**
     * An 8 MiB relay, everything may be held in memory (so a block on disk is there because it must be), half the
     * quota per transfer, blocks checked as a production relay checks them.
     */
    private void start() throws Exception {
        h = new RelayHarness(new StoreConfig(store, QUOTA, QUOTA, TTL, QUOTA, QUOTA / 2, MAX_RETAIN), ConnectionHandlers.NONE,
                RelayConnectionConfig.DEFAULT.withRequestTimeout(Duration.ofSeconds(5)), RelayHarness.POLICY, true);
    }

    private void restart(Duration after) throws Exception {
        h = h.restart(after);
    }

    /** A transfer a server opened at the relay, the key its blocks are sealed with, and its collector's token. */
    private record Transfer(TransferId id, TransferKey key, CapabilityToken token) {
    }

    private Transfer open(RelayConnection server, Duration lifetime, long space, boolean retained) throws Exception {
        TransferId id = TransferId.random();
        TokenKey tokenKey = TokenKey.random();
        Instant expires = h.clock.instant().plus(lifetime);
        server.openTransfer(id, tokenKey, expires, space, retained).get(5, TimeUnit.SECONDS);
        return new Transfer(id, TransferKey.generate(id.value(), 256, new SecureRandom()),
                CapabilityToken.issue(tokenKey, id, expires, TokenScope.ALL));
    }

    private Transfer retained(RelayConnection server, Duration lifetime) throws Exception {
        return open(server, lifetime, QUOTA / 4, true);
    }

    private static byte[] data(Transfer t, long seq, int size) {
        byte[] b = new byte[size];
        new Random(t.id().value() + seq).nextBytes(b);
        return b;
    }

    private static BlockPipeline.Builder pipeline(Transfer t) {
        return BlockPipeline.builder().transferId(t.id().value()).checksum(ChecksumAlgorithm.CRC32C)
                .digest(ChecksumAlgorithm.SHA256).noCompression().encryption(t.key());
    }

    /** Seals blocks 0..count-1 of {@code t} of {@code size} data bytes each and puts them; returns their wire bytes. */
    private static List<byte[]> push(RelayConnection server, Transfer t, int count, int size) throws Exception {
        List<byte[]> wire = new ArrayList<>();
        try (BlockPipeline sender = pipeline(t).build()) {
            for (int i = 0; i < count; i++) {
                Block b = seal(sender, t, i, size);
                wire.add(ByteBufUtil.getBytes(b.content()));
                server.putBlock(t.id(), i, b.content()).get(5, TimeUnit.SECONDS);
            }
        }
        return wire;
    }

    private static Block seal(BlockPipeline sender, Transfer t, long seq, int size) {
        ByteBuf data = Unpooled.wrappedBuffer(data(t, seq, size));
        try {
            Block b = sender.seal(data, seq * size, "evacuated.bin", false).block();
            assertEquals(seq, b.header().sequence());
            return b;
        } finally {
            data.release();
        }
    }

    /** Fetches every block of {@code wire} as its collector, checks the bytes and opens each with the transfer key. */
    private void collect(Transfer t, List<byte[]> wire) throws Exception {
        try (RelayConnection client = h.client(); BlockPipeline receiver = pipeline(t).build()) {
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            for (int seq = 0; seq < wire.size(); seq++) {
                ByteBuf got = client.getBlock(t.id(), seq).get(5, TimeUnit.SECONDS);
                try {
                    assertArrayEquals(wire.get(seq), ByteBufUtil.getBytes(got), "block " + seq);
                    Block block = Blocks.parse(got, BlockLimits.DEFAULT);
                    OpenedBlock opened = receiver.open(block);
                    try {
                        assertArrayEquals(data(t, seq, BLOCK_DATA), ByteBufUtil.getBytes(opened.content()));
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

    private Path dir(Transfer t) {
        return store.resolve(t.id().toString());
    }

    private long files(Transfer t) throws Exception {
        if (!Files.isDirectory(dir(t))) {
            return 0;
        }
        try (Stream<Path> s = Files.list(dir(t))) {
            return s.count();
        }
    }

    private static long size(List<byte[]> wire) {
        return wire.stream().mapToLong(b -> b.length).sum();
    }

    private static RelayErrorCode refusal(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
        return assertInstanceOf(RelayRefusedException.class, e.getCause()).code();
    }

    /** Waits until the relay's reservations add up to {@code expected} bytes. */
    private void awaitReserved(long expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (h.relay.store().reserved() != expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(expected, h.relay.store().reserved());
    }

    /** Waits until the transfer's directory is deleted and the relay holds nothing. */
    private void awaitGone(Transfer t) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while ((Files.exists(dir(t)) || h.relay.store().used() > 0) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertFalse(Files.exists(dir(t)), dir(t) + " deleted");
        assertEquals(0, h.relay.store().used());
    }

    @Test
    void aRestartedRelayKeepsARetainedTransferWhoseCollectorFetchesEveryBlockWithItsToken() throws Exception {
        start();
        Transfer t;
        List<byte[]> wire;
        try (RelayConnection server = h.server()) {
            t = retained(server, Duration.ofDays(2));
            wire = push(server, t, 4, BLOCK_DATA);
        }
        // On disk although memory had room: metadata and the four blocks.
        assertEquals(0, h.relay.store().memoryUsed());
        assertEquals(5, files(t));
        assertTrue(Files.exists(dir(t).resolve(RetainedTransfer.FILE_NAME)));

        restart(Duration.ofHours(3)); // longer than the idle TTL, too
        assertEquals(size(wire), h.relay.store().used());
        assertEquals(size(wire), h.relay.store().reserved(), "restored finished: it keeps reserved what it holds");
        try (RelayConnection client = h.client()) {
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            RelayMessage.Status status = client.status(t.id()).get(5, TimeUnit.SECONDS);
            assertEquals(4, status.blocks());
            assertEquals(size(wire), status.bytes());
            assertEquals(t.token().expiresAt().toEpochMilli(), status.expiresAt().toEpochMilli());
        }
        collect(t, wire);

        // Confirmed blocks are freed as ever; the owner's ABORT_TRANSFER ends the transfer and its files.
        try (RelayConnection client = h.client()) {
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            assertEquals(2L, client.confirm(t.id(), RelayHarness.seqs(0, 2)).get(5, TimeUnit.SECONDS));
            assertInstanceOf(BlockNotFoundException.class, assertThrows(ExecutionException.class,
                    () -> client.getBlock(t.id(), 0).get(5, TimeUnit.SECONDS)).getCause());
        }
        try (RelayConnection server = h.server()) {
            server.abortTransfer(t.id()).get(5, TimeUnit.SECONDS);
        }
        awaitGone(t);
        restart(Duration.ZERO);
        assertTrue(h.relay.store().status(t.id()).isEmpty(), "an aborted transfer does not come back");
    }

    @Test
    void aRetainedTransferOutlivesTheIdleTtlAndIsDroppedAtItsExpiry() throws Exception {
        start();
        Transfer kept;
        Transfer ordinary;
        try (RelayConnection server = h.server()) {
            kept = retained(server, Duration.ofDays(1));
            ordinary = open(server, Duration.ofDays(1), QUOTA / 4, false);
            push(server, kept, 1, BLOCK_DATA);
            push(server, ordinary, 1, BLOCK_DATA);
        }
        h.clock.advance(TTL.multipliedBy(6));
        assertEquals(1, h.relay.store().expire(), "only the transfer that is not retained is idle");
        assertTrue(h.relay.store().status(ordinary.id()).isEmpty());
        assertEquals(1, h.relay.store().status(kept.id()).orElseThrow().blocks());

        h.clock.advance(Duration.ofDays(1));
        assertEquals(1, h.relay.store().expire());
        assertTrue(h.relay.store().status(kept.id()).isEmpty());
        awaitGone(kept);
    }

    @Test
    void atStartExpiredRetainedTransfersAndLeftoversOfOthersAreDeletedAndOtherFilesKept() throws Exception {
        start();
        Transfer shortLived;
        Transfer longLived;
        List<byte[]> wire;
        try (RelayConnection server = h.server()) {
            shortLived = retained(server, Duration.ofHours(1));
            longLived = retained(server, Duration.ofDays(1));
            push(server, shortLived, 2, BLOCK_DATA);
            wire = push(server, longLived, 2, BLOCK_DATA);
        }
        h.close();
        // What a crashed relay leaves of a transfer that was not retained: spilled blocks, no metadata.
        Path leftover = store.resolve(TransferId.random().toString());
        Files.createDirectories(leftover);
        Files.write(leftover.resolve("0.blk"), new byte[100]);
        Path foreign = Files.writeString(store.resolve("README"), "not the relay's");

        restart(Duration.ofHours(2));
        assertFalse(Files.exists(dir(shortLived)), "expired while the relay was down");
        assertTrue(h.relay.store().status(shortLived.id()).isEmpty());
        assertFalse(Files.exists(leftover), "blocks of a transfer that was not retained");
        assertTrue(Files.exists(foreign));
        assertEquals(size(wire), h.relay.store().used());
        collect(longLived, wire);
    }

    @Test
    void restoredTransfersKeepReservedWhatTheyHoldAndTakeNoNewBlock() throws Exception {
        start();
        Transfer t;
        List<byte[]> wire;
        try (RelayConnection server = h.server()) {
            t = open(server, Duration.ofDays(1), QUOTA, true); // reserves half the quota, the most one transfer may
            wire = push(server, t, 2, BLOCK_DATA);
        }
        restart(Duration.ZERO);
        assertEquals(size(wire), h.relay.store().reserved(), "what it holds, not the half it reserved when opened");
        assertEquals(size(wire), h.relay.store().used());
        try (RelayConnection server = h.server()) {
            open(server, Duration.ofHours(1), QUOTA / 2, false);
            open(server, Duration.ofHours(1), QUOTA / 2 - size(wire), false); // the rest, all but the restored blocks
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> open(server, Duration.ofHours(1), 1, false));
            assertEquals(RelayErrorCode.NO_SPACE, assertInstanceOf(RelayRefusedException.class, e.getCause()).code(),
                    "the restored blocks still count");
            // Nobody pushes into it after a restart: a new block is refused, its server places it elsewhere.
            try (BlockPipeline sender = pipeline(t).build()) {
                for (int i = 0; i < 2; i++) {
                    seal(sender, t, i, BLOCK_DATA).release(); // the sequence numbers already placed
                }
                Block third = seal(sender, t, 2, BLOCK_DATA);
                assertEquals(RelayErrorCode.SPACE_EXCEEDED, refusal(server.putBlock(t.id(), 2, third.content())));
            }
        }
        collect(t, wire);
    }

    /**
     * A retained transfer whose server connection closes keeps reserved only what it holds (its server crashed
     * mid-evacuation, say); FINISH_TRANSFER does the same on a connection that stays; a collector confirming every
     * block frees everything, and the transfer's files go.
     */
    @Test
    void aRetainedTransferKeepsWhatItHoldsOnceItsServerIsDoneAndNothingOnceCollected() throws Exception {
        start();
        Transfer crashed;
        Transfer finished;
        List<byte[]> crashedWire;
        List<byte[]> finishedWire;
        try (RelayConnection server = h.server()) {
            crashed = retained(server, Duration.ofDays(1));
            crashedWire = push(server, crashed, 2, BLOCK_DATA);
        }
        awaitReserved(size(crashedWire));
        try (RelayConnection server = h.server()) {
            finished = retained(server, Duration.ofDays(1));
            finishedWire = push(server, finished, 1, BLOCK_DATA);
            assertEquals(size(crashedWire) + QUOTA / 4, h.relay.store().reserved());
            server.finishTransfer(finished.id()).get(5, TimeUnit.SECONDS);
            assertEquals(size(crashedWire) + size(finishedWire), h.relay.store().reserved());
            assertEquals(h.relay.store().used(), h.relay.store().reserved());
        }
        collect(crashed, crashedWire);
        collect(finished, finishedWire);
        try (RelayConnection client = h.client()) {
            client.authorize(crashed.token()).get(5, TimeUnit.SECONDS);
            client.authorize(finished.token()).get(5, TimeUnit.SECONDS);
            assertEquals(2L, client.confirm(crashed.id(), RelayHarness.seqs(0, 2)).get(5, TimeUnit.SECONDS));
            assertEquals(1L, client.confirm(finished.id(), RelayHarness.seqs(0, 1)).get(5, TimeUnit.SECONDS));
        }
        awaitGone(crashed);
        awaitGone(finished);
        assertEquals(0, h.relay.store().reserved(), "collected whole: nothing stays reserved");
        restart(Duration.ZERO);
        assertTrue(h.relay.store().status(crashed.id()).isEmpty() && h.relay.store().status(finished.id()).isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "garbage\n", "fsp-relay-transfer 2\n", "truncated", "other transfer"})
    void aTransferWithUnsoundMetadataIsDeletedAtStartAndTheRelayServesTheOthers(String damage) throws Exception {
        start();
        Transfer bad;
        Transfer good;
        List<byte[]> wire;
        try (RelayConnection server = h.server()) {
            bad = retained(server, Duration.ofDays(1));
            good = retained(server, Duration.ofDays(1));
            push(server, bad, 2, BLOCK_DATA);
            wire = push(server, good, 2, BLOCK_DATA);
        }
        h.close();
        Path metadata = dir(bad).resolve(RetainedTransfer.FILE_NAME);
        String sound = Files.readString(metadata);
        Files.writeString(metadata, switch (damage) {
            case "truncated" -> sound.substring(0, sound.length() / 2);
            case "other transfer" -> sound.replace(bad.id().toString(), good.id().toString());
            default -> damage;
        });

        restart(Duration.ZERO);
        assertTrue(h.relay.store().status(bad.id()).isEmpty());
        assertFalse(Files.exists(dir(bad)));
        assertEquals(size(wire), h.relay.store().used());
        collect(good, wire);
    }

    @Test
    void aBlockFileWhoseSizeOrHeaderIsWrongIsDeletedAtStart() throws Exception {
        start();
        Transfer t;
        List<byte[]> wire;
        try (RelayConnection server = h.server()) {
            t = retained(server, Duration.ofDays(1));
            wire = push(server, t, 3, BLOCK_DATA);
        }
        h.close();
        Path one = dir(t).resolve("1.blk");
        Files.write(one, java.util.Arrays.copyOf(Files.readAllBytes(one), wire.get(1).length - 1)); // cut short
        Files.copy(dir(t).resolve("0.blk"), dir(t).resolve("2.blk"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);

        restart(Duration.ZERO);
        assertEquals(wire.get(0).length, h.relay.store().used());
        assertEquals(1, h.relay.store().status(t.id()).orElseThrow().blocks());
        assertFalse(Files.exists(one));
        assertFalse(Files.exists(dir(t).resolve("2.blk")));
        collect(t, wire.subList(0, 1));
    }

    @Test
    void aPutBeyondARetainedTransfersReservationIsRefusedAtOnceWithNoSpace() throws Exception {
        start();
        try (RelayConnection server = h.server()) {
            Transfer t = open(server, Duration.ofDays(1), 100 * QUOTA, true); // reserves QUOTA / 2: 4 MiB
            int size = 1 << 20;
            try (BlockPipeline sender = pipeline(t).build()) {
                for (int i = 0; i < 3; i++) {
                    server.putBlock(t.id(), i, seal(sender, t, i, size).content()).get(5, TimeUnit.SECONDS);
                }
                // A fourth block of 1 MiB and its overhead does not fit into 4 MiB: refused, not kept waiting.
                long asked = System.nanoTime();
                assertEquals(RelayErrorCode.NO_SPACE, refusal(server.putBlock(t.id(), 3, seal(sender, t, 3, size)
                        .content())));
                assertTrue(System.nanoTime() - asked < TimeUnit.SECONDS.toNanos(4), "refused at once");
            }
            assertEquals(3, h.relay.store().status(t.id()).orElseThrow().blocks());
            assertEquals(0, h.relay.store().waiting());
            // The connection goes on: the server may place the block elsewhere and open more.
            open(server, Duration.ofHours(1), 1000, false);
        }
    }

    @Test
    void aRetentionBeyondMaxRetainIsRefusedAndTheConnectionGoesOn() throws Exception {
        start();
        try (RelayConnection server = h.server()) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> retained(server, MAX_RETAIN.plusMinutes(1)));
            RelayRefusedException refused = assertInstanceOf(RelayRefusedException.class, e.getCause());
            assertEquals(RelayErrorCode.RETENTION_TOO_LONG, refused.code());
            assertTrue(refused.text().endsWith("this relay retains transfers for at most 7d (--max-retain)"),
                    refused.text());
            assertEquals(0, h.relay.store().reserved());
            retained(server, MAX_RETAIN);
            open(server, MAX_RETAIN.plusDays(1), 1000, false); // the limit is for retained transfers only
        }
    }
}

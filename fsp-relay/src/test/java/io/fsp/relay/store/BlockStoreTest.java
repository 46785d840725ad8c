package io.fsp.relay.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.block.Block;
import io.fsp.block.stage.BlockPipeline;
import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.crypto.NonceSequence;
import io.fsp.crypto.TransferKey;
import io.fsp.relay.MutableClock;
import io.fsp.tls.Certificates;
import io.fsp.tls.Fingerprint;
import io.fsp.token.TokenKey;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class BlockStoreTest {
    private static final Instant START = Instant.parse("2026-11-22T00:00:00Z");
    private static final Fingerprint SERVER = Certificates.selfSigned("server").fingerprint();
    private static final Fingerprint OTHER_SERVER = Certificates.selfSigned("other server").fingerprint();
    /** 1 MiB, half of it for one transfer, so that two fit. */
    private static final java.util.function.Function<Path, StoreConfig> HALF_PER_TRANSFER = d -> new StoreConfig(d,
            1 << 20, 1 << 20, Duration.ofMinutes(10), 1 << 20, 1 << 19, StoreConfig.DEFAULT_MAX_RETAIN);
    @TempDir
    Path dir;
    private final ExecutorService disk = Executors.newSingleThreadExecutor();
    private final MutableClock clock = new MutableClock(START);
    private final TransferId transfer = TransferId.random();
    private final TokenKey key = TokenKey.random();
    private BlockStore store;

    @AfterEach
    void stop() throws Exception {
        if (store != null) {
            store.clear();
            store.close();
        }
        disk.shutdown();
        assertTrue(disk.awaitTermination(10, TimeUnit.SECONDS));
    }

    private BlockStore store(long quota, long memory) throws IOException {
        return store(new StoreConfig(dir, quota, memory, Duration.ofMinutes(10)));
    }

    private BlockStore store(StoreConfig config) throws IOException {
        store = new BlockStore(config, disk, clock, PooledByteBufAllocator.DEFAULT);
        store.open(transfer, key, START.plus(Duration.ofHours(1)), Long.MAX_VALUE, SERVER, false).join();
        return store;
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static ByteBuf buf(byte[] b) {
        return Unpooled.wrappedBuffer(b);
    }

    private byte[] read(long seq) throws Exception {
        Optional<ByteBuf> got = store.get(transfer, seq).get(10, TimeUnit.SECONDS);
        assertTrue(got.isPresent(), "block " + seq + " held");
        byte[] b = ByteBufUtil.getBytes(got.get());
        got.get().release();
        return b;
    }

    private long fileCount() throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().equals(StoreLock.FILE_NAME)).count();
        }
    }

    @Test
    void blockWithinTheMemoryBudgetIsHeldInMemory() throws Exception {
        store(1 << 20, 1 << 20);
        byte[] b = bytes(1000, 1);
        store.put(transfer, 0, buf(b)).get(5, TimeUnit.SECONDS);
        assertArrayEquals(b, read(0));
        assertEquals(1000, store.memoryUsed());
        assertEquals(0, fileCount());
    }

    /**
     * A block the frame decoder gathered (a slice of a buffer holding the frame's prefix too) is held as it is; a
     * slice of a larger received buffer is copied, so that the store does not keep the rest of it alive.
     */
    @Test
    void aGatheredBlockIsHeldWithoutACopyButASliceOfALargerBufferIsCopied() throws Exception {
        store(1 << 20, 1 << 20);
        byte[] b = bytes(1000, 3);
        ByteBuf gathered = Unpooled.directBuffer(20 + b.length).writeZero(20).writeBytes(b);
        ByteBuf received = Unpooled.directBuffer(20 + b.length + 4096).writeZero(20).writeBytes(b).writeZero(4096);

        store.put(transfer, 0, gathered.retainedSlice(20, b.length)).get(5, TimeUnit.SECONDS);
        store.put(transfer, 1, received.retainedSlice(20, b.length)).get(5, TimeUnit.SECONDS);
        gathered.release();
        received.release();

        assertEquals(1, gathered.refCnt(), "the gathered frame's buffer is what the store holds");
        assertEquals(0, received.refCnt(), "the larger buffer was copied from and let go");
        assertArrayEquals(b, read(0));
        assertArrayEquals(b, read(1));
        store.confirm(transfer, List.of(0L));
        assertEquals(0, gathered.refCnt(), "freed with its block");
    }

    @Test
    void blocksBeyondTheMemoryBudgetSpillToDiskAsExactlyTheirBytes() throws Exception {
        store(1 << 20, 1500);
        byte[] first = bytes(1000, 1);
        byte[] second = bytes(1000, 2);
        store.put(transfer, 0, buf(first)).get(5, TimeUnit.SECONDS);
        store.put(transfer, 1, buf(second)).get(5, TimeUnit.SECONDS);
        assertEquals(1000, store.memoryUsed());
        assertEquals(2000, store.used());
        Path spilled = dir.resolve(transfer.toString()).resolve("1.blk");
        assertArrayEquals(second, Files.readAllBytes(spilled));
        assertEquals(1, fileCount());
        assertArrayEquals(first, read(0));
        assertArrayEquals(second, read(1));
    }

    @Test
    void putWaitsWhileTheQuotaIsFullAndResumesWhenAConfirmFreesSpace() throws Exception {
        store(2000, 1000);
        store.put(transfer, 0, buf(bytes(1000, 1))).get(5, TimeUnit.SECONDS);
        store.put(transfer, 1, buf(bytes(1000, 2))).get(5, TimeUnit.SECONDS);
        byte[] third = bytes(1000, 3);
        CompletableFuture<Void> waiting = store.put(transfer, 2, buf(third));
        disk.submit(() -> { }).get(5, TimeUnit.SECONDS); // a write of the third block would have run by now
        assertFalse(waiting.isDone(), "put must wait for space");
        assertEquals(1, store.waiting());
        assertEquals(1, store.confirm(transfer, List.of(0L)));
        waiting.get(5, TimeUnit.SECONDS);
        assertArrayEquals(third, read(2));
        assertEquals(2000, store.used());
    }

    @Test
    void blockLargerThanTheQuotaIsRefusedAtOnce() throws Exception {
        store(1000, 1000);
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> store.put(transfer, 0, buf(bytes(1001, 1))).get(5, TimeUnit.SECONDS));
        assertEquals(StoreException.Reason.BLOCK_TOO_LARGE, ((StoreException) e.getCause()).reason());
        assertEquals(0, store.used());
    }

    @Test
    void putForAnUnknownTransferIsRefused() throws Exception {
        store(1000, 1000);
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> store.put(TransferId.random(), 0, buf(bytes(10, 1))).get(5, TimeUnit.SECONDS));
        assertEquals(StoreException.Reason.UNKNOWN_TRANSFER, ((StoreException) e.getCause()).reason());
    }

    @Test
    void confirmFreesMemoryAndDeletesSpilledFiles() throws Exception {
        store(1 << 20, 1000);
        store.put(transfer, 0, buf(bytes(1000, 1))).get(5, TimeUnit.SECONDS);
        store.put(transfer, 1, buf(bytes(1000, 2))).get(5, TimeUnit.SECONDS);
        assertEquals(2, store.confirm(transfer, List.of(0L, 1L, 7L)));
        assertTrue(store.get(transfer, 0).get().isEmpty());
        assertTrue(store.get(transfer, 1).get().isEmpty());
        awaitUsed(0);
        assertEquals(0, store.memoryUsed());
        assertEquals(0, fileCount());
    }

    /** HOLDS counts a block in memory, or one whose file is there whole; it frees nothing. */
    @Test
    void holdsNamesTheBlocksInMemoryOrWholeOnDiskAndFreesNothing() throws Exception {
        store(1 << 20, 1000);
        store.put(transfer, 0, buf(bytes(1000, 1))).get(5, TimeUnit.SECONDS); // in memory
        store.put(transfer, 1, buf(bytes(1000, 2))).get(5, TimeUnit.SECONDS); // spilled
        store.put(transfer, 2, buf(bytes(1000, 3))).get(5, TimeUnit.SECONDS); // spilled, then cut short
        assertEquals(List.of(2L, 0L, 1L), store.holds(transfer, List.of(2L, 0L, 9L, 1L)).get(5, TimeUnit.SECONDS));
        try (Stream<Path> s = Files.walk(dir)) {
            Path file = s.filter(p -> p.getFileName().toString().equals("2.blk")).filter(Files::isRegularFile)
                    .findFirst().orElseThrow();
            Files.write(file, new byte[10]);
        }
        assertEquals(List.of(0L, 1L), store.holds(transfer, List.of(0L, 1L, 2L)).get(5, TimeUnit.SECONDS));
        assertEquals(List.of(), store.holds(TransferId.random(), List.of(0L)).get(5, TimeUnit.SECONDS));
        assertEquals(1, store.confirm(transfer, List.of(0L)));
        assertEquals(List.of(1L), store.holds(transfer, List.of(0L, 1L)).get(5, TimeUnit.SECONDS));
    }

    @Test
    void getDoesNotFreeABlock() throws Exception {
        store(1 << 20, 1 << 20);
        byte[] b = bytes(100, 1);
        store.put(transfer, 0, buf(b)).get(5, TimeUnit.SECONDS);
        assertArrayEquals(b, read(0));
        assertArrayEquals(b, read(0)); // a client re-fetching after a bad verify finds it again
    }

    @Test
    void repeatedPutKeepsTheFirstBytes() throws Exception {
        store(1 << 20, 1 << 20);
        byte[] first = bytes(100, 1);
        store.put(transfer, 0, buf(first)).get(5, TimeUnit.SECONDS);
        store.put(transfer, 0, buf(bytes(100, 2))).get(5, TimeUnit.SECONDS);
        assertArrayEquals(first, read(0));
        assertEquals(100, store.used());
    }

    @Test
    void idleTransferExpiresAfterTheTtl() throws Exception {
        store(1 << 20, 500);
        store.put(transfer, 0, buf(bytes(400, 1))).get(5, TimeUnit.SECONDS);
        store.put(transfer, 1, buf(bytes(400, 2))).get(5, TimeUnit.SECONDS);
        clock.advance(Duration.ofMinutes(9));
        assertEquals(0, store.expire());
        read(0); // activity restarts the TTL
        clock.advance(Duration.ofMinutes(9));
        assertEquals(0, store.expire());
        clock.advance(Duration.ofMinutes(2));
        assertEquals(1, store.expire());
        assertTrue(store.status(transfer).isEmpty());
        awaitUsed(0);
        assertEquals(0, fileCount());
    }

    @Test
    void transferPastItsExpiryIsDroppedEvenWhenBusy() throws Exception {
        store(1 << 20, 1 << 20);
        for (int i = 0; i < 13; i++) {
            clock.advance(Duration.ofMinutes(5));
            store.put(transfer, i, buf(bytes(10, i))).get(5, TimeUnit.SECONDS);
        }
        assertEquals(1, store.expire());
    }

    @Test
    void abortDropsBlocksAndFailsWaitingPuts() throws Exception {
        store(1000, 0);
        store.put(transfer, 0, buf(bytes(1000, 1))).get(5, TimeUnit.SECONDS);
        CompletableFuture<Void> waiting = store.put(transfer, 1, buf(bytes(10, 2)));
        assertTrue(store.abort(transfer));
        ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(5, TimeUnit.SECONDS));
        assertInstanceOf(StoreException.class, e.getCause());
        awaitUsed(0);
        assertEquals(0, fileCount());
        assertFalse(store.abort(transfer));
    }

    @Test
    void openingAgainWithTheSameKeyIsHarmlessButAnotherKeyIsRefused() throws Exception {
        store(1000, 1000);
        assertEquals(BlockStore.OpenResult.ALREADY_OPEN,
                store.open(transfer, key, START.plusSeconds(60), 0, SERVER, false).join());
        assertEquals(BlockStore.OpenResult.KEY_MISMATCH,
                store.open(transfer, TokenKey.random(), START.plusSeconds(60), 0, SERVER, false).join());
        assertEquals(BlockStore.OpenResult.KEY_MISMATCH, store.open(transfer, key, START.plusSeconds(60), 0,
                Certificates.selfSigned("another server").fingerprint(), false).join());
    }

    @Test
    void blocksLeftByAnEarlierRunAreRemovedAtStartButOtherFilesAreNot() throws Exception {
        Path old = dir.resolve("0011223344556677");
        Files.createDirectories(old);
        Files.write(old.resolve("3.blk"), new byte[10]);
        Path foreign = dir.resolve("README");
        Files.writeString(foreign, "not ours");
        store(1000, 1000);
        assertFalse(Files.exists(old));
        assertTrue(Files.exists(foreign));
    }

    /** A sealed block {@code seq} of {@code id}: what a retained transfer's restore checks its files against. */
    static byte[] sealed(TransferId id, long seq) {
        try (BlockPipeline sender = BlockPipeline.builder().transferId(id.value()).checksum(ChecksumAlgorithm.CRC32C)
                .noCompression().encryption(TransferKey.generate(id.value(), 128, new java.security.SecureRandom()))
                .sequence(new NonceSequence(seq)).build()) {
            ByteBuf data = buf(bytes(1000, (int) seq));
            Block b = sender.seal(data, 0, "f", true).block();
            data.release();
            byte[] wire = ByteBufUtil.getBytes(b.content());
            b.release();
            return wire;
        }
    }

    @Test
    void aRetainedTransfersBlocksGoToDiskAndAStoreOpenedAfterACrashRestoresThem() throws Exception {
        store(HALF_PER_TRANSFER.apply(dir));
        TransferId kept = TransferId.random();
        assertEquals(BlockStore.OpenResult.OPENED,
                store.open(kept, key, START.plus(Duration.ofDays(1)), 10_000, SERVER, true).get(5, TimeUnit.SECONDS));
        byte[] first = sealed(kept, 0);
        byte[] second = sealed(kept, 1);
        store.put(kept, 0, buf(first)).get(5, TimeUnit.SECONDS);
        store.put(kept, 1, buf(second)).get(5, TimeUnit.SECONDS);
        store.put(transfer, 0, buf(bytes(100, 1))).get(5, TimeUnit.SECONDS);
        assertEquals(100, store.memoryUsed(), "only the block of the transfer that is not retained is in memory");
        assertArrayEquals(second, Files.readAllBytes(dir.resolve(kept.toString()).resolve("1.blk")));

        // While it is open, a second store on its directory is refused, and deletes nothing there.
        IOException taken = assertThrows(IOException.class,
                () -> new BlockStore(HALF_PER_TRANSFER.apply(dir), disk, clock, PooledByteBufAllocator.DEFAULT));
        assertTrue(taken.getMessage().contains(dir + " is the store of a relay that runs (pid "
                + ProcessHandle.current().pid() + "; its lock: " + dir.resolve(".lock") + "): each relay needs a store"
                + " of its own (--store)"), taken.getMessage());
        assertArrayEquals(second, Files.readAllBytes(dir.resolve(kept.toString()).resolve("1.blk")));
        assertEquals(100, store.memoryUsed());

        // No clear(): the process died, and the kernel gave its lock back. A new store on the same directory has the
        // retained transfer only, finished: nobody pushes into it after a restart, so it keeps reserved what it holds.
        store.close();
        store = null;
        BlockStore restarted = new BlockStore(HALF_PER_TRANSFER.apply(dir), disk, clock,
                PooledByteBufAllocator.DEFAULT);
        store = restarted;
        assertTrue(restarted.status(transfer).isEmpty());
        BlockStore.TransferStatus status = restarted.status(kept).orElseThrow();
        assertEquals(new BlockStore.TransferStatus(2, first.length + second.length, START.plus(Duration.ofDays(1)),
                10_000, first.length + second.length, true), status);
        assertEquals(key, restarted.tokenKey(kept).orElseThrow());
        assertEquals(SERVER, restarted.owner(kept).orElseThrow());
        assertEquals(first.length + second.length, restarted.reserved());
        ByteBuf got = restarted.get(kept, 1).get(5, TimeUnit.SECONDS).orElseThrow();
        assertArrayEquals(second, ByteBufUtil.getBytes(got));
        got.release();
        // Its owner opening it again (a reconnecting server) is harmless; as a transfer that is not retained, refused.
        assertEquals(BlockStore.OpenResult.ALREADY_OPEN,
                restarted.open(kept, key, START.plus(Duration.ofDays(1)), 10_000, SERVER, true).join());
        assertEquals(BlockStore.OpenResult.KEY_MISMATCH,
                restarted.open(kept, key, START.plus(Duration.ofDays(1)), 10_000, SERVER, false).join());
        StoreException beyond = assertThrows(StoreException.class,
                () -> join(restarted.put(kept, 2, buf(sealed(kept, 2)))));
        assertEquals(StoreException.Reason.SPACE_EXCEEDED, beyond.reason(), "a restored transfer takes no new block");
    }

    /**
     * A relay restarted with lower limits restores only what fits them: the retained transfers that expire latest
     * first, each kept if it fits beside those, the others deleted with their files. It never reserves beyond its
     * quota or a server's shares, so new transfers are not refused for weeks.
     */
    @Test
    void aRestartWithLowerLimitsRestoresOnlyTheRetainedTransfersThatFitTheLatestExpiringFirst() throws Exception {
        store(HALF_PER_TRANSFER.apply(dir));
        TransferId soonest = TransferId.random();
        TransferId latest = TransferId.random();
        TransferId between = TransferId.random();
        TransferId others = TransferId.random();
        long held = 0;
        for (TransferId id : List.of(soonest, latest, between, others)) {
            Instant expires = START.plus(Duration.ofDays(id == soonest ? 1 : id == latest ? 3 : 2));
            Fingerprint owner = id == others ? OTHER_SERVER : SERVER;
            assertEquals(BlockStore.OpenResult.OPENED, store.open(id, key, expires, 10_000, owner, true).join());
            store.put(id, 0, buf(sealed(id, 0))).get(5, TimeUnit.SECONDS);
            store.put(id, 1, buf(sealed(id, 1))).get(5, TimeUnit.SECONDS);
            held = 2L * sealed(id, 0).length;
        }
        store.close();
        store = null;

        // Room for three transfers' blocks in all, for two of one server's.
        long quota = 3 * held + held / 2;
        BlockStore restarted = new BlockStore(new StoreConfig(dir, quota, quota, Duration.ofMinutes(10), quota, held,
                StoreConfig.DEFAULT_MAX_RETAIN, 2 * held + held / 2), disk, clock, PooledByteBufAllocator.DEFAULT);
        store = restarted;
        assertTrue(restarted.status(soonest).isEmpty(), "the one of SERVER that expires soonest does not fit its share");
        assertEquals(held, restarted.status(latest).orElseThrow().bytes());
        assertEquals(held, restarted.status(between).orElseThrow().bytes());
        assertEquals(held, restarted.status(others).orElseThrow().bytes(), "another server's share is its own");
        assertEquals(3 * held, restarted.reserved());
        assertFalse(Files.exists(dir.resolve(soonest.toString())), "deleted with its files, for good");
        restarted.close();
        store = null;

        // Lower still: room for one transfer in all. The latest expiring stays; another server's is no exception.
        restarted = new BlockStore(new StoreConfig(dir, held + held / 2, 0, Duration.ofMinutes(10), held + held / 2,
                held, StoreConfig.DEFAULT_MAX_RETAIN), disk, clock, PooledByteBufAllocator.DEFAULT);
        store = restarted;
        assertEquals(held, restarted.status(latest).orElseThrow().bytes());
        assertTrue(restarted.status(between).isEmpty());
        assertTrue(restarted.status(others).isEmpty());
        assertEquals(held, restarted.reserved());
        assertTrue(restarted.reserved() <= restarted.quota());
        assertEquals(BlockStore.OpenResult.NO_SPACE,
                restarted.open(TransferId.random(), key, START.plus(Duration.ofHours(1)), held, SERVER, false).join());
        assertEquals(BlockStore.OpenResult.OPENED,
                restarted.open(TransferId.random(), key, START.plus(Duration.ofHours(1)), held / 2, SERVER, false).join(),
                "what is left of the quota is free for new transfers");
    }

    /**
     * Space follows use: finishing a transfer shrinks its reservation to what it holds and refuses new blocks; every
     * block confirmed after that returns its bytes to the relay, and the last one ends the transfer, its retained
     * metadata too. A finished transfer that holds nothing ends at once.
     */
    @Test
    void aFinishedTransferKeepsReservedOnlyWhatItHoldsAndEndsWhenEveryBlockIsConfirmed() throws Exception {
        store(HALF_PER_TRANSFER.apply(dir));
        TransferId kept = TransferId.random();
        store.open(kept, key, START.plus(Duration.ofDays(1)), 10_000, SERVER, true).get(5, TimeUnit.SECONDS);
        byte[] first = sealed(kept, 0);
        byte[] second = sealed(kept, 1);
        store.put(kept, 0, buf(first)).get(5, TimeUnit.SECONDS);
        store.put(kept, 1, buf(second)).get(5, TimeUnit.SECONDS);
        long ordinaryReservation = store.reserved() - 10_000;

        assertEquals(BlockStore.FinishResult.KEPT, store.finish(kept));
        assertEquals(first.length + second.length, store.status(kept).orElseThrow().reservation());
        assertEquals(ordinaryReservation + first.length + second.length, store.reserved());
        StoreException refused = assertThrows(StoreException.class, () -> join(store.put(kept, 2, buf(sealed(kept, 2)))));
        assertEquals(StoreException.Reason.SPACE_EXCEEDED, refused.reason());
        join(store.put(kept, 1, buf(second))); // a block it holds is acknowledged again, as ever

        assertEquals(1, store.confirm(kept, List.of(0L)));
        awaitEquals(ordinaryReservation + second.length, store::reserved);
        assertEquals(second.length, store.status(kept).orElseThrow().reservation());
        assertEquals(1, store.confirm(kept, List.of(1L)));
        awaitEquals(ordinaryReservation, store::reserved);
        assertTrue(store.status(kept).isEmpty(), "collected whole: ended");
        awaitEquals(0, () -> Files.exists(dir.resolve(kept.toString())) ? 1 : 0);

        TransferId empty = TransferId.random();
        store.open(empty, key, START.plus(Duration.ofHours(1)), 10_000, SERVER, true).get(5, TimeUnit.SECONDS);
        assertEquals(BlockStore.FinishResult.ENDED, store.finish(empty));
        assertEquals(ordinaryReservation, store.reserved());
        assertThrows(StoreException.class, () -> store.finish(empty));
    }

    /** The retained transfers of one server reserve at most serverRetainedBytes together; other servers are not held back. */
    @Test
    void aServersRetainedTransfersStayWithinItsRetainedSpace() throws Exception {
        store(new StoreConfig(dir, 1 << 20, 1 << 20, Duration.ofMinutes(10), 1 << 20, 100_000,
                StoreConfig.DEFAULT_MAX_RETAIN, 30_000));
        Instant expires = START.plus(Duration.ofDays(1));
        assertEquals(BlockStore.OpenResult.OPENED, store.open(TransferId.random(), key, expires, 20_000, SERVER, true).join());
        assertEquals(BlockStore.OpenResult.NO_SPACE, store.open(TransferId.random(), key, expires, 10_001, SERVER, true).join());
        assertEquals(Optional.of("this server's retained share (--server-retained-space): 9.8 KiB free of 29.3 KiB"),
                store.shortfall(SERVER, true, 10_001));
        assertEquals(Optional.empty(), store.shortfall(SERVER, false, 10_001));
        assertEquals(BlockStore.OpenResult.OPENED, store.open(TransferId.random(), key, expires, 10_000, SERVER, true).join());
        assertEquals(BlockStore.OpenResult.OPENED, store.open(TransferId.random(), key, expires, 100_000, SERVER, false).join(),
                "ordinary transfers are not bounded by it");
        assertEquals(BlockStore.OpenResult.OPENED,
                store.open(TransferId.random(), key, expires, 30_000, OTHER_SERVER, true).join(), "nor another server");
    }

    @Test
    void aRetainedTransferIsRefusedBeyondTheLongestRetentionAndItsPutsNeverWait() throws Exception {
        store(new StoreConfig(dir, 1 << 20, 1 << 20, Duration.ofMinutes(10), 1 << 20, 2000,
                StoreConfig.DEFAULT_MAX_RETAIN));
        TransferId t = TransferId.random();
        assertEquals(BlockStore.OpenResult.RETENTION_TOO_LONG, store.open(t, key,
                START.plus(StoreConfig.DEFAULT_MAX_RETAIN).plusMillis(1), 100_000, SERVER, true).join());
        assertEquals(BlockStore.OpenResult.OPENED, store.open(t, key, START.plus(StoreConfig.DEFAULT_MAX_RETAIN),
                100_000, SERVER, true).join());
        byte[] block = sealed(t, 0);
        store.put(t, 0, buf(block)).get(5, TimeUnit.SECONDS);
        // The reservation (2000 bytes) cannot take a second block: refused at once, not kept waiting.
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> store.put(t, 1, buf(sealed(t, 1))).get(5, TimeUnit.SECONDS));
        assertEquals(StoreException.Reason.NO_SPACE, ((StoreException) e.getCause()).reason());
        assertEquals(0, store.waiting());
        assertEquals(block.length, store.used());
    }

    @Test
    void aRetainedTransferIsOpenOnlyOnceItsMetadataIsOnDiskAndOneClosedMeanwhileLeavesNone() throws Exception {
        store(HALF_PER_TRANSFER.apply(dir));
        java.util.concurrent.CountDownLatch diskBusy = new java.util.concurrent.CountDownLatch(1);
        disk.execute(() -> {
            try {
                diskBusy.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        TransferId t = TransferId.random();
        Instant expires = START.plus(Duration.ofDays(1));
        CompletableFuture<BlockStore.OpenResult> opened = store.open(t, key, expires, 1000, SERVER, true);
        Path metadata = dir.resolve(t.toString()).resolve(RetainedTransfer.FILE_NAME);
        CompletableFuture<Boolean> onDiskWhenOpened = opened.handle((r, e) -> Files.exists(metadata));
        CompletableFuture<BlockStore.OpenResult> again = store.open(t, key, expires, 1000, SERVER, true);
        TransferId closed = TransferId.random();
        CompletableFuture<BlockStore.OpenResult> aborted = store.open(closed, key, expires, 1000, SERVER, true);
        assertTrue(store.abort(closed));
        // The store works on the calling thread and on the disk executor only, held here: what it would complete
        // without the metadata on disk is complete by now.
        assertFalse(opened.isDone() || again.isDone() || aborted.isDone(), "nothing is open before its metadata");
        diskBusy.countDown();
        assertEquals(BlockStore.OpenResult.OPENED, opened.get(5, TimeUnit.SECONDS));
        assertEquals(BlockStore.OpenResult.ALREADY_OPEN, again.get(5, TimeUnit.SECONDS));
        assertTrue(onDiskWhenOpened.get(5, TimeUnit.SECONDS), "open once its metadata is on disk");
        ExecutionException e = assertThrows(ExecutionException.class, () -> aborted.get(5, TimeUnit.SECONDS));
        assertEquals(StoreException.Reason.UNKNOWN_TRANSFER, ((StoreException) e.getCause()).reason());
        disk.submit(() -> { }).get(5, TimeUnit.SECONDS);
        assertFalse(Files.exists(dir.resolve(closed.toString())), "an aborted transfer leaves nothing to restore");
    }

    /** The put's outcome, its StoreException thrown as it is. */
    private static void join(CompletableFuture<Void> put) throws Exception {
        try {
            put.get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw (Exception) e.getCause();
        }
    }

    private static void awaitEquals(long expected, java.util.function.LongSupplier value) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (value.getAsLong() != expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(expected, value.getAsLong());
    }

    private void awaitUsed(long expected) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (store.used() != expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(expected, store.used());
    }
}

package io.fsp.relay.store;

import io.fsp.tls.Fingerprint;
import io.fsp.token.TokenKey;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The blocks a relay holds, by transfer and sequence number. Metadata changes under this object's lock;
 * file reads, writes and deletes run on the disk executor, never on a caller's event loop.
 *
 * <p>Space: a transfer declares at open the most block bytes its server will push here; the store reserves
 * that much for it (at most {@code transferSpaceBytes}) out of the quota and out of its server's share
 * ({@code serverQuotaBytes}), or refuses the transfer ({@link Reservations} adds these up). Its blocks are held within its reservation: a put
 * that would hold more waits until the client confirms some of the transfer's blocks, and a put beyond the
 * declared bytes is refused. The reservation is returned when the transfer ends (confirmed blocks return to
 * the transfer, not to others). Every byte held counts against its transfer from the moment it is admitted
 * until its block is gone from memory or disk.
 *
 * <p>Once its server has pushed all it will ({@link #finish}), a transfer is <em>finished</em>: its reservation
 * shrinks to what it holds, every block freed after that (confirmed, or lost to a disk error) gives its bytes back
 * to the relay, not to the transfer, and a finished transfer that holds nothing more has ended. So space follows
 * use: a whole collection frees everything, and an evacuation never keeps room it did not fill.
 *
 * <p>Spilled blocks live in {@code directory/<transfer id hex>/<seq>.blk} and contain exactly the block
 * bytes the server sent ({@link SpillFiles}).
 *
 * <p>A <em>retained</em> transfer is kept for a collector that comes later, across restarts: its metadata is
 * written beside its blocks ({@link RetainedTransfer}) before it is opened, every block of it goes to disk and is
 * forced there before its put completes, it is never dropped for being idle, and a put beyond its reservation is
 * refused at once (nobody confirms its blocks until its collector comes). The retained transfers of one server
 * reserve at most {@code serverRetainedBytes} together. At start the store restores the retained transfers an
 * earlier run left, finished (nobody pushes into them after a restart), as many as fit this run's limits (the latest
 * expiring first), and deletes everything else that run left ({@link RetainedTransfers}). One store at a time has a directory ({@link StoreLock}).
 */
public final class BlockStore {
    /** What a held block may keep alive beyond its own bytes: a relay frame's header and block prefix, and then some. */
    static final int MAX_PINNED_BYTES = 64;
    private static final Logger log = LoggerFactory.getLogger(BlockStore.class);

    private final StoreConfig config;
    private final Executor disk;
    private final Clock clock;
    private final ByteBufAllocator alloc;
    private final SpillFiles files;
    private final RetainedTransfers retainedTransfers;
    /** This store's directory is this process's while the store is open ({@link #close}). */
    private final StoreLock lock;

    // Guarded by this.
    private final Map<TransferId, Transfer> transfers = new HashMap<>();
    private final Reservations reservations;
    private long used;
    private long memoryUsed;

    public BlockStore(StoreConfig config, Executor disk, Clock clock, ByteBufAllocator alloc) throws IOException {
        this.config = config;
        this.disk = disk;
        this.clock = clock;
        this.alloc = alloc;
        this.files = new SpillFiles(config.directory(), alloc);
        this.retainedTransfers = new RetainedTransfers(files);
        this.reservations = new Reservations(config);
        this.lock = StoreLock.take(config.directory()); // before restoring deletes what another run left
        try {
            restore();
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    /**
     * Gives the directory back to the next store that opens it (a restarted relay): what {@link #clear} left there,
     * retained transfers, stays for it.
     */
    public void close() throws IOException {
        lock.close();
    }

    /** Outcome of {@link #finish}. */
    public enum FinishResult {
        /** The transfer keeps what it holds, in a reservation shrunk to that. */
        KEPT,
        /** It held nothing: it has ended. */
        ENDED
    }

    /** Outcome of {@link #open}. */
    public enum OpenResult { OPENED, ALREADY_OPEN, KEY_MISMATCH, NO_SPACE, RETENTION_TOO_LONG }

    /**
     * Opens a transfer for the server whose certificate is {@code owner}, reserving room for {@code space}
     * bytes (at most the per-transfer limit); opening it again with the same key by the same server (and the same
     * retention) is harmless (a reconnecting server). {@link OpenResult#NO_SPACE} when the quota or the server's
     * share (for a retained transfer also its share for retained transfers) cannot take the reservation, or
     * {@code space} is not positive; {@link OpenResult#RETENTION_TOO_LONG}
     * when a {@code retained} transfer would expire beyond the store's {@code maxRetain} from now. A retained
     * transfer is open once its metadata is on disk; the future fails with {@code STORE_FAILED} if it cannot be
     * written.
     */
    public CompletableFuture<OpenResult> open(TransferId id, TokenKey key, Instant expiresAt, long space,
                                              Fingerprint owner, boolean retained) {
        Transfer t;
        synchronized (this) {
            Transfer open = transfers.get(id);
            if (open != null) {
                if (!open.key.equals(key) || !open.owner.equals(owner) || open.retained != retained) {
                    return CompletableFuture.completedFuture(OpenResult.KEY_MISMATCH);
                }
                return open.kept.thenApply(v -> OpenResult.ALREADY_OPEN);
            }
            if (retained && expiresAt.isAfter(clock.instant().plus(config.maxRetain()))) {
                return CompletableFuture.completedFuture(OpenResult.RETENTION_TOO_LONG);
            }
            long reservation = Math.min(space, config.transferSpaceBytes());
            if (space < 1 || !reservations.admits(owner, retained, reservation)) {
                return CompletableFuture.completedFuture(OpenResult.NO_SPACE);
            }
            t = new Transfer(id, key, expiresAt, space, reservation, owner, retained, clock.instant());
            reserve(t);
        }
        if (retained) {
            disk.execute(() -> keep(t));
        }
        return t.kept.thenApply(v -> OpenResult.OPENED);
    }

    /** Writes a retained transfer's metadata and completes {@link Transfer#kept}; runs on the disk executor. */
    private void keep(Transfer t) {
        try {
            retainedTransfers.keep(t.record());
        } catch (IOException | RuntimeException e) {
            log.warn("cannot keep retained transfer {} in {}: {}", t.id, files.transferDir(t.id), e.toString());
            boolean wasOpen;
            synchronized (this) {
                wasOpen = transfers.remove(t.id, t);
                if (wasOpen) {
                    unreserve(t);
                }
            }
            if (wasOpen) {
                dropBlocks(t);
            }
            t.kept.completeExceptionally(new StoreException(StoreException.Reason.FAILED,
                    "cannot keep transfer " + t.id + " on disk: " + e.getMessage(), e));
            return;
        }
        boolean open;
        synchronized (this) {
            open = transfers.get(t.id) == t;
        }
        if (!open) {
            retainedTransfers.forget(t.id); // aborted or expired meanwhile: it must not come back at the next start
            t.kept.completeExceptionally(new StoreException(StoreException.Reason.UNKNOWN_TRANSFER,
                    "transfer " + t.id + " was closed while it was opened"));
            return;
        }
        t.kept.complete(null);
    }

    /** Takes a transfer's reservation and makes it open (called with the lock held). */
    private void reserve(Transfer t) {
        count(t, t.reservation);
        transfers.put(t.id, t);
    }

    /** Returns a transfer's reservation; it is gone from {@link #transfers} (called with the lock held). */
    private void unreserve(Transfer t) {
        count(t, -t.reservation);
    }

    /** Gives back {@code bytes} of an open transfer's reservation to the relay (called with the lock held). */
    private void shrink(Transfer t, long bytes) {
        t.reservation -= bytes;
        count(t, -bytes);
    }

    /** Adds {@code bytes} (negative: takes them) to the totals a transfer's reservation counts in. */
    private void count(Transfer t, long bytes) {
        reservations.add(t.owner, t.retained, bytes);
    }

    /**
     * The server pushes nothing more into {@code id} (it placed every block, stopped striping, or the connection
     * that opened the transfer closed): its reservation shrinks to what it holds (blocks being stored included),
     * later puts of new blocks are refused, and from now on every block freed returns its bytes to the relay. A
     * transfer that holds nothing ends at once. Finishing a finished transfer changes nothing.
     */
    public FinishResult finish(TransferId id) throws StoreException {
        Transfer t;
        synchronized (this) {
            t = liveTransfer(id);
            t.touch(clock.instant());
            t.finished = true;
            long keep = t.held + t.waiters.stream().mapToLong(Waiter::size).sum();
            shrink(t, t.reservation - keep);
            if (!endIfEmpty(t)) {
                return FinishResult.KEPT;
            }
        }
        dropBlocks(t);
        return FinishResult.ENDED;
    }

    /**
     * Whether {@code t}, open and finished, holds nothing more; it is then closed (its blocks are the caller's to
     * drop, outside the lock). Called with the lock held.
     */
    private boolean endIfEmpty(Transfer t) {
        if (!t.finished || t.reservation > 0 || transfers.get(t.id) != t) {
            return false;
        }
        transfers.remove(t.id);
        return true;
    }

    /** The server that opened the transfer, if it is open. */
    public synchronized Optional<Fingerprint> owner(TransferId id) {
        Transfer t = transfers.get(id);
        return t == null ? Optional.empty() : Optional.of(t.owner);
    }

    /** The key tokens for {@code id} are checked with, if the transfer is open. */
    public synchronized Optional<TokenKey> tokenKey(TransferId id) {
        Transfer t = transfers.get(id);
        return t == null ? Optional.empty() : Optional.of(t.key);
    }

    /**
     * Stores a block, taking ownership of {@code block}. Completes once the block is held (in memory at
     * once, on disk after the write); waits first while its transfer holds its reservation's worth. A block
     * already held is acknowledged again and its new bytes discarded: a stored block never changes. Fails with
     * {@code SPACE_EXCEEDED} if the block would take its transfer beyond the bytes it declared, and for a retained
     * transfer with {@code NO_SPACE} at once instead of waiting. A retained transfer's block completes once it is
     * forced to disk.
     */
    public CompletableFuture<Void> put(TransferId id, long seq, ByteBuf block) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        int size = block.readableBytes();
        try {
            if (size > config.quotaBytes()) {
                throw new StoreException(StoreException.Reason.BLOCK_TOO_LARGE,
                        "block: " + size + " bytes (expected: <= quota " + config.quotaBytes() + ")");
            }
            synchronized (this) {
                Transfer t = liveTransfer(id);
                t.touch(clock.instant());
                if (t.blocks.containsKey(seq) || t.writing.contains(seq)) {
                    block.release();
                    done.complete(null);
                    return done;
                }
                if (t.finished) {
                    throw new StoreException(StoreException.Reason.SPACE_EXCEEDED, "block " + seq + ": transfer " + id
                            + " is finished (its server pushes nothing more into it)");
                }
                if (size > t.reservation) {
                    throw new StoreException(StoreException.Reason.BLOCK_TOO_LARGE, "block: " + size
                            + " bytes (expected: <= the " + t.reservation + " bytes reserved for transfer " + id + ")");
                }
                if (t.pushed + size > t.space) {
                    throw new StoreException(StoreException.Reason.SPACE_EXCEEDED, "block " + seq + ": " + size
                            + " bytes more than the " + (t.space - t.pushed) + " left of the " + t.space
                            + " bytes transfer " + id + " declared");
                }
                if (t.retained && t.held + size > t.reservation) {
                    throw new StoreException(StoreException.Reason.NO_SPACE, "block " + seq + ": " + size + " bytes more than"
                            + " the " + (t.reservation - t.held) + " left of the " + t.reservation + " bytes reserved"
                            + " for retained transfer " + id + " (nobody confirms its blocks before its collector"
                            + " comes); try another relay");
                }
                t.pushed += size;
                t.writing.add(seq);
                Waiter w = new Waiter(id, seq, block, size, done);
                if (t.waiters.isEmpty() && t.held + size <= t.reservation) {
                    admit(t, w);
                } else {
                    t.waiters.add(w); // back-pressure: completes once the client confirms blocks of this transfer
                }
            }
        } catch (StoreException e) {
            block.release();
            done.completeExceptionally(e);
        }
        return done;
    }

    /** Counts {@code w} as held by {@code t} and places it (called with the lock held). */
    private void admit(Transfer t, Waiter w) {
        t.held += w.size;
        used += w.size;
        place(t, w);
    }

    /**
     * Holds the block of {@code w}: keep it in memory if the budget allows, else write it to disk; a retained
     * transfer's block always goes to disk, forced.
     */
    private void place(Transfer t, Waiter w) {
        // Called with the lock held; the disk write runs outside it.
        if (!t.retained && memoryUsed + w.size <= config.memoryBytes()) {
            memoryUsed += w.size;
            ByteBuf copy = ownBuffer(w.block, w.size) ? w.block : copyOf(w.block, w.size);
            t.writing.remove(w.seq);
            t.blocks.put(w.seq, new Held(copy, null, w.size));
            t.bytes += w.size;
            complete(w.done);
            return;
        }
        boolean force = t.retained;
        disk.execute(() -> spill(w, force));
    }

    /**
     * Whether the store can hold {@code block} as it is: it is a buffer of its own, or a slice of one that holds at
     * most {@link #MAX_PINNED_BYTES} more (the frame decoder gathers a block frame, its prefix included, into one
     * buffer of the frame's size). A slice of a larger received buffer is copied instead, so as not to pin the rest.
     * Copying every gathered block would cost a relay a copy of every byte it holds.
     */
    private static boolean ownBuffer(ByteBuf block, int size) {
        ByteBuf whole = block;
        while (whole.unwrap() != null) { // slices, and the leak detector's wrappers
            whole = whole.unwrap();
        }
        return block.readableBytes() == size && whole.capacity() - size <= MAX_PINNED_BYTES;
    }

    /** A copy of exactly {@code size} bytes; releases {@code block}. */
    private ByteBuf copyOf(ByteBuf block, int size) {
        ByteBuf copy = alloc.buffer(size, size);
        copy.writeBytes(block, block.readerIndex(), size);
        block.release();
        return copy;
    }

    /** Writes a block to its file; {@code force}: and to the disk, so that it survives a crash once acknowledged. */
    private void spill(Waiter w, boolean force) {
        Path file = files.blockFile(w.id, w.seq);
        try {
            files.write(file, w.block, force);
        } catch (IOException e) {
            log.warn("cannot spill block {} of transfer {} to {}: {}", w.seq, w.id, file, e.toString());
            SpillFiles.deleteQuietly(file);
            Transfer t;
            synchronized (this) {
                t = transfers.get(w.id);
                if (t != null) {
                    t.writing.remove(w.seq);
                    t.pushed -= w.size; // not stored: the server may push it again
                }
            }
            release(t, w.size, 0);
            w.block.release();
            w.done.completeExceptionally(new StoreException(StoreException.Reason.FAILED,
                    "cannot store block " + w.seq + ": " + e.getMessage(), e));
            return;
        }
        w.block.release();
        boolean kept;
        Transfer t;
        synchronized (this) {
            t = transfers.get(w.id);
            kept = t != null && t.writing.remove(w.seq);
            if (kept) {
                t.blocks.put(w.seq, new Held(null, file, w.size));
                t.bytes += w.size;
            }
        }
        if (kept) {
            w.done.complete(null);
        } else {
            // The transfer was aborted or expired while the block was being written.
            SpillFiles.deleteQuietly(file);
            release(t, w.size, 0);
            w.done.completeExceptionally(new StoreException(StoreException.Reason.UNKNOWN_TRANSFER,
                    "transfer " + w.id + " was closed while block " + w.seq + " was stored"));
        }
    }

    /**
     * The bytes of a held block (the caller releases them), or empty if the store does not hold it.
     * Reading a spilled block happens on the disk executor.
     */
    public CompletableFuture<Optional<ByteBuf>> get(TransferId id, long seq) {
        return held(id, seq, b -> b, files::read);
    }

    /**
     * A held block for sending: its memory as {@link #get} gives it, or for a spilled block a region of its file that
     * the kernel sends without a copy through the JVM ({@code sendfile}); the caller releases it. The file is opened
     * on the disk executor, so a block confirmed meanwhile is still sent whole (or is empty if it was gone before).
     */
    public CompletableFuture<Optional<io.netty.util.ReferenceCounted>> getForSending(TransferId id, long seq) {
        return held(id, seq, b -> b, files::region);
    }

    /** How a spilled block is taken from its file. */
    private interface Spilled<T> {
        T take(Path file, int size) throws IOException;
    }

    /** A held block: {@code inMemory} of its memory, or {@code spilled} of its file on the disk executor. */
    private <T> CompletableFuture<Optional<T>> held(TransferId id, long seq,
                                                    java.util.function.Function<ByteBuf, T> inMemory, Spilled<T> spilled) {
        Held h;
        synchronized (this) {
            Transfer t = transfers.get(id);
            h = t == null ? null : t.blocks.get(seq);
            if (t != null) {
                t.touch(clock.instant());
            }
            if (h != null && h.memory != null) {
                return CompletableFuture.completedFuture(Optional.of(inMemory.apply(h.memory.retainedDuplicate())));
            }
        }
        if (h == null) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        CompletableFuture<Optional<T>> result = new CompletableFuture<>();
        Path file = h.file;
        int size = h.size;
        disk.execute(() -> {
            try {
                result.complete(Optional.of(spilled.take(file, size)));
            } catch (NoSuchFileException e) {
                result.complete(Optional.empty()); // confirmed or expired meanwhile
            } catch (IOException e) {
                log.warn("cannot read spilled block {} of transfer {}: {}", seq, id, e.toString());
                result.completeExceptionally(new StoreException(StoreException.Reason.FAILED,
                        "cannot read block " + seq + ": " + e.getMessage(), e));
            }
        });
        return result;
    }

    /** Size of a held block and whether reading it needs the disk; empty if not held. */
    public synchronized Optional<HeldBlock> held(TransferId id, long seq) {
        Transfer t = transfers.get(id);
        Held h = t == null ? null : t.blocks.get(seq);
        return h == null ? Optional.empty() : Optional.of(new HeldBlock(h.size, h.memory == null));
    }

    /**
     * Which of {@code seqs} the store holds, in the order asked: a block in memory, or one whose file is there with
     * its length (looked at on the disk executor). Frees nothing and is no activity of the transfer.
     */
    public CompletableFuture<List<Long>> holds(TransferId id, List<Long> seqs) {
        Map<Long, Held> found = new java.util.LinkedHashMap<>();
        synchronized (this) {
            Transfer t = transfers.get(id);
            for (long seq : t == null ? List.<Long>of() : seqs) {
                Held h = t.blocks.get(seq);
                if (h != null) {
                    found.put(seq, h);
                }
            }
        }
        if (found.values().stream().allMatch(h -> h.memory != null)) {
            return CompletableFuture.completedFuture(List.copyOf(found.keySet()));
        }
        CompletableFuture<List<Long>> result = new CompletableFuture<>();
        disk.execute(() -> {
            List<Long> there = new ArrayList<>();
            found.forEach((seq, h) -> {
                if (h.memory != null || onDisk(h)) {
                    there.add(seq);
                }
            });
            result.complete(there);
        });
        return result;
    }

    private static boolean onDisk(Held h) {
        try {
            return Files.size(h.file) == h.size;
        } catch (IOException e) {
            return false; // confirmed or expired meanwhile, or lost
        }
    }

    /** What {@link #held} tells. */
    public record HeldBlock(int size, boolean onDisk) {
    }

    /** Frees the given blocks; returns how many were held. */
    public int confirm(TransferId id, List<Long> seqs) throws StoreException {
        List<Held> freed = new ArrayList<>();
        Transfer t;
        synchronized (this) {
            t = liveTransfer(id);
            t.touch(clock.instant());
            for (long seq : seqs) {
                Held h = t.blocks.remove(seq);
                if (h != null) {
                    t.bytes -= h.size;
                    freed.add(h);
                }
            }
        }
        freed.forEach(h -> free(t, h));
        return freed.size();
    }

    /** Drops a transfer with all its blocks; returns whether it was open. */
    public boolean abort(TransferId id) {
        Transfer t;
        synchronized (this) {
            t = transfers.remove(id);
            if (t != null) {
                unreserve(t);
            }
        }
        if (t == null) {
            return false;
        }
        dropBlocks(t);
        return true;
    }

    /** Drops transfers past their expiry or, unless retained, idle for longer than the TTL; returns how many. */
    public int expire() {
        Instant now = clock.instant();
        List<Transfer> dropped = new ArrayList<>();
        synchronized (this) {
            for (Iterator<Transfer> it = transfers.values().iterator(); it.hasNext(); ) {
                Transfer t = it.next();
                boolean idle = !t.retained && !now.isBefore(t.lastActivity.plus(config.ttl()));
                if (!now.isBefore(t.expiresAt) || idle) {
                    it.remove();
                    unreserve(t);
                    dropped.add(t);
                }
            }
        }
        for (Transfer t : dropped) {
            log.info("transfer {} expired: dropping {} blocks, {} bytes", t.id, t.blocks.size(), t.bytes);
            dropBlocks(t);
        }
        return dropped.size();
    }

    /**
     * Why a transfer that declares {@code space} is refused NO_SPACE now: the limit its reservation (at most the
     * per-transfer space) does not fit and how much of it is free; empty if it fits.
     */
    public synchronized Optional<String> shortfall(Fingerprint owner, boolean retained, long space) {
        return reservations.shortfall(owner, retained, Math.min(space, config.transferSpaceBytes()));
    }

    /** {@code 512 bytes}, {@code 1.5 MiB}: a size as the relay's messages show it. */
    public static String size(long bytes) {
        return Reservations.size(bytes);
    }

    /** A transfer's holdings; empty if it is not open. */
    public synchronized Optional<TransferStatus> status(TransferId id) {
        Transfer t = transfers.get(id);
        if (t == null) {
            return Optional.empty();
        }
        return Optional.of(new TransferStatus(t.blocks.size(), t.bytes, t.expiresAt, t.space, t.reservation,
                t.retained));
    }

    /** Names a held block. */
    public record BlockKey(TransferId transferId, long seq) {
    }

    /** Some held block other than {@code seq} of {@code transfer}, from another transfer if there is one. */
    public synchronized Optional<BlockKey> anyOtherBlock(TransferId transfer, long seq) {
        BlockKey sameTransfer = null;
        for (Transfer t : transfers.values()) {
            for (long s : t.blocks.keySet()) {
                if (!t.id.equals(transfer)) {
                    return Optional.of(new BlockKey(t.id, s));
                }
                if (s != seq && sameTransfer == null) {
                    sameTransfer = new BlockKey(t.id, s);
                }
            }
        }
        return Optional.ofNullable(sameTransfer);
    }

    /** Bytes of blocks held or being stored, in memory and on disk. */
    public synchronized long used() {
        return used;
    }

    /** Bytes reserved by the open transfers (at most the quota). */
    public synchronized long reserved() {
        return reservations.total();
    }

    public synchronized long memoryUsed() {
        return memoryUsed;
    }

    /** Transfers open now, retained ones included. */
    public synchronized int openTransfers() {
        return transfers.size();
    }

    /** Retained transfers open now. */
    public synchronized int retainedTransfers() {
        return (int) transfers.values().stream().filter(t -> t.retained).count();
    }

    /** Puts waiting for space. */
    public synchronized int waiting() {
        return transfers.values().stream().mapToInt(t -> t.waiters.size()).sum();
    }

    public long quota() {
        return config.quotaBytes();
    }

    public StoreConfig config() {
        return config;
    }

    /** Drops everything but the retained transfers' files, which the next start restores (shutdown). */
    public void clear() {
        List<Transfer> all;
        synchronized (this) {
            all = new ArrayList<>(transfers.values());
            transfers.clear();
            all.forEach(this::unreserve);
            all.stream().filter(t -> t.retained).forEach(t -> used -= t.bytes); // their files stay
        }
        all.stream().filter(t -> !t.retained).forEach(this::dropBlocks);
    }

    /**
     * What a transfer holds at this relay.
     *
     * @param space the block bytes its server declared it would push here
     * @param reservation what the relay reserved for it: the most it holds at once
     * @param retained kept on disk until its expiry, across restarts
     */
    public record TransferStatus(long blocks, long bytes, Instant expiresAt, long space, long reservation,
                                 boolean retained) {
    }

    // ---------------------------------------------------------------- internals

    private Transfer liveTransfer(TransferId id) throws StoreException {
        Transfer t = transfers.get(id);
        if (t == null) {
            throw new StoreException(StoreException.Reason.UNKNOWN_TRANSFER, "transfer " + id + " is not open here");
        }
        return t;
    }

    private void dropBlocks(Transfer t) {
        List<Held> held;
        List<Waiter> cancelled = new ArrayList<>();
        synchronized (this) {
            held = new ArrayList<>(t.blocks.values());
            t.blocks.clear();
            t.bytes = 0;
            cancelled.addAll(t.waiters);
            t.waiters.clear();
        }
        if (t.retained) {
            // The metadata goes first: a crash while the blocks are deleted leaves leftovers, not a transfer.
            disk.execute(() -> {
                retainedTransfers.forget(t.id);
                held.forEach(h -> free(t, h));
            });
        } else {
            held.forEach(h -> free(t, h));
        }
        for (Waiter w : cancelled) {
            w.block.release();
            w.done.completeExceptionally(new StoreException(StoreException.Reason.UNKNOWN_TRANSFER,
                    "transfer " + t.id + " was closed while block " + w.seq + " waited for space"));
        }
    }

    private void free(Transfer t, Held h) {
        if (h.memory != null) {
            h.memory.release();
            release(t, h.size, h.size);
        } else {
            disk.execute(() -> {
                SpillFiles.deleteQuietly(h.file);
                release(t, h.size, 0);
            });
        }
    }

    /**
     * Returns the bytes of a block of {@code t} that is gone (and its memory), and admits the transfer's waiting
     * puts that fit now, in arrival order; a finished transfer gives the bytes back to the relay, and ends once it
     * holds nothing. {@code t} is null when the transfer is no longer open.
     */
    private void release(Transfer t, long bytes, long memory) {
        synchronized (this) {
            used -= bytes;
            memoryUsed -= memory;
            if (t == null) {
                return;
            }
            t.held -= bytes;
            if (t.finished && transfers.get(t.id) == t) {
                shrink(t, bytes); // its server pushes no more: the space goes back to the relay
            }
            while (!t.waiters.isEmpty() && t.held + t.waiters.peek().size <= t.reservation) {
                admit(t, t.waiters.poll());
            }
            if (endIfEmpty(t)) {
                log.info("transfer {} ended: every block of it is confirmed or gone", t.id);
            } else {
                t = null;
            }
        }
        if (t != null) {
            dropBlocks(t); // its blocks are gone already; a retained transfer's metadata goes now
        }
    }

    private static void complete(CompletableFuture<Void> done) {
        // Runs under this store's lock: continuations must only hand over to their own thread (the session
        // handler re-schedules onto its event loop), never call back into the store inline.
        done.complete(null);
    }

    /**
     * Opens again the retained transfers an earlier run left ({@link RetainedTransfers#restore}), finished: nobody
     * pushes into them after a restart (the connection that opened them is gone), so each keeps what it holds. They
     * must fit this run's limits, which may be lower than the last run's: in order of expiry, the latest first, each
     * is kept if what it holds fits within the quota, its server's share and its server's retained space beside those
     * kept before it, and deleted otherwise (one log line each). So the transfers that would expire soonest go first.
     */
    private void restore() throws IOException {
        Instant now = clock.instant();
        List<RetainedTransfers.Restored> found = new ArrayList<>();
        retainedTransfers.restore(now, found::add);
        found.sort(Comparator.comparing((RetainedTransfers.Restored r) -> r.transfer().expiresAt()).reversed()
                .thenComparing(r -> r.transfer().id().toString()));
        for (RetainedTransfers.Restored restored : found) {
            RetainedTransfer r = restored.transfer();
            if (reservations.admits(r.owner(), true, restored.bytes())) {
                reopen(restored, now);
            } else {
                log.warn("deleting retained transfer {} of server {} left by an earlier run: its {} bytes (expiring {})"
                        + " do not fit beside the {} bytes restored before it (--quota {}, --server-quota {},"
                        + " --server-retained-space {}; transfers expiring later are kept first)", r.id(), r.owner(),
                        restored.bytes(), r.expiresAt(), reservations.total(), config.quotaBytes(),
                        config.serverQuotaBytes(), config.serverRetainedBytes());
                retainedTransfers.forget(r.id()); // its metadata first: a crash meanwhile leaves leftovers, not a transfer
                SpillFiles.deleteLeftovers(files.transferDir(r.id()));
            }
        }
    }

    private void reopen(RetainedTransfers.Restored restored, Instant now) {
        RetainedTransfer r = restored.transfer();
        Transfer t = new Transfer(r.id(), r.key(), r.expiresAt(), r.space(), r.reservation(), r.owner(), true, now);
        t.kept.complete(null); // its metadata is on disk: that is where it comes from
        for (RetainedTransfers.Block b : restored.blocks()) {
            t.blocks.put(b.seq(), new Held(null, b.file(), b.size()));
            t.bytes += b.size();
            t.held += b.size();
        }
        t.pushed = t.held;
        t.finished = true;
        t.reservation = t.held;
        reserve(t);
        used += t.held;
        log.info("restored retained transfer {}: {} blocks, {} bytes, expires {}, {} bytes reserved", r.id(),
                t.blocks.size(), t.bytes, r.expiresAt(), t.reservation);
    }

    private static final class Transfer {
        final TransferId id;
        final TokenKey key;
        final Fingerprint owner;
        final Instant expiresAt;
        /** Block bytes the server declared it would push here. */
        final long space;
        /** What the relay reserved for the transfer: the most it holds at once; once finished, what it holds. */
        long reservation;
        /** Its server pushes nothing more into it ({@link #finish}). */
        boolean finished;
        /** Kept on disk until its expiry, across restarts. */
        final boolean retained;
        /** Completes once the transfer is open: at once, or for a retained one once its metadata is on disk. */
        final CompletableFuture<Void> kept;
        final Map<Long, Held> blocks = new HashMap<>();
        final java.util.Set<Long> writing = new java.util.HashSet<>();
        /** Puts waiting for the transfer to hold less, in arrival order. */
        final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
        Instant lastActivity;
        /** Bytes of the blocks in {@link #blocks}. */
        long bytes;
        /** Bytes of the blocks held or being stored: at most {@link #reservation}. */
        long held;
        /** Bytes of all blocks accepted so far, confirmed ones too: at most {@link #space}. */
        long pushed;

        Transfer(TransferId id, TokenKey key, Instant expiresAt, long space, long reservation, Fingerprint owner,
                 boolean retained, Instant now) {
            this.id = id;
            this.retained = retained;
            this.kept = retained ? new CompletableFuture<>() : CompletableFuture.completedFuture(null);
            this.key = key;
            this.owner = owner;
            this.expiresAt = expiresAt;
            this.space = space;
            this.reservation = reservation;
            this.lastActivity = now;
        }

        void touch(Instant now) {
            lastActivity = now;
        }

        RetainedTransfer record() {
            return new RetainedTransfer(id, key, expiresAt, space, reservation, owner);
        }
    }

    /** A held block: in memory or in a file. */
    private record Held(ByteBuf memory, Path file, int size) {
    }

    /** A put admitted or waiting for quota. */
    private record Waiter(TransferId id, long seq, ByteBuf block, int size, CompletableFuture<Void> done) {
    }
}

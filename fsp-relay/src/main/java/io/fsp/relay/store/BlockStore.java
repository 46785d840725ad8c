package io.fsp.relay.store;

import io.fsp.relay.store.Transfer.Held;
import io.fsp.relay.store.Transfer.Waiter;
import io.fsp.tls.Fingerprint;
import io.fsp.token.TokenKey;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCounted;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
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
 * The blocks a relay holds, by transfer and sequence number: a façade over {@link Admission} (what a transfer
 * reserves of the quota and its server's shares, and which blocks it may push), {@link Placement} (memory or disk)
 * and {@link Restore} (the retained transfers an earlier run left). Metadata changes under this object's lock; file
 * reads, writes and deletes run on the disk executor, never on a caller's event loop.
 *
 * <p>Space: a transfer declares at open the most block bytes its server will push here; the store reserves that much
 * for it (at most {@code transferSpaceBytes}) or refuses it. Its blocks are held within its reservation: a put that
 * would hold more waits until the client confirms some of the transfer's blocks. Every byte held counts against its
 * transfer from the moment it is admitted until its block is gone from memory or disk. Once its server has pushed all
 * it will ({@link #finish}), a transfer is <em>finished</em>: its reservation shrinks to what it holds, every block
 * freed after that gives its bytes back to the relay, and a finished transfer that holds nothing more has ended.
 *
 * <p>A <em>retained</em> transfer is kept for a collector that comes later, across restarts: its metadata is written
 * beside its blocks ({@link RetainedTransfer}) before it is opened, every block of it is forced to disk before its put
 * completes, it is never dropped for being idle, and a put beyond its reservation is refused at once. The retained
 * transfers of one server reserve at most {@code serverRetainedBytes} together. One store at a time has a directory
 * ({@link StoreLock}).
 */
public final class BlockStore {
    private static final Logger log = LoggerFactory.getLogger(BlockStore.class);

    private final StoreConfig config;
    private final Executor disk;
    private final Clock clock;
    private final SpillFiles files;
    private final Admission admission;
    private final Placement placement;
    private final RetainedTransfers retainedTransfers;
    /** This store's directory is this process's while the store is open ({@link #close}). */
    private final StoreLock lock;

    // Guarded by this.
    private final Map<TransferId, Transfer> transfers = new HashMap<>();
    private long used;

    public BlockStore(StoreConfig config, Executor disk, Clock clock, ByteBufAllocator alloc) throws IOException {
        this.config = config;
        this.disk = disk;
        this.clock = clock;
        this.files = new SpillFiles(config.directory(), alloc);
        this.retainedTransfers = new RetainedTransfers(files);
        this.admission = new Admission(config);
        this.placement = new Placement(this, config, disk, alloc, files);
        this.lock = StoreLock.take(config.directory()); // before restoring deletes what another run left
        try {
            Restore.run(retainedTransfers, files, admission, config, clock.instant(), t -> {
                reserve(t);
                used += t.held;
            });
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    /** Gives the directory back to the next store that opens it: what {@link #clear} left there stays for it. */
    public void close() throws IOException {
        lock.close();
    }

    /** Outcome of {@link #finish}: the transfer keeps what it holds, in a reservation shrunk to that, or it ended. */
    public enum FinishResult { KEPT, ENDED }

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
            Optional<OpenResult> refusal = admission.refusal(owner, retained, space, expiresAt, clock.instant());
            if (refusal.isPresent()) {
                return CompletableFuture.completedFuture(refusal.get());
            }
            t = new Transfer(id, key, expiresAt, space, admission.reservation(space), owner, retained, clock.instant());
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
                    admission.unreserve(t);
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
        admission.reserve(t);
        transfers.put(t.id, t);
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
            admission.shrink(t, t.reservation - keep);
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
            admission.checkSize(size);
            synchronized (this) {
                Transfer t = liveTransfer(id);
                t.touch(clock.instant());
                if (t.blocks.containsKey(seq) || t.writing.contains(seq)) {
                    block.release();
                    done.complete(null);
                    return done;
                }
                admission.checkPut(t, seq, size);
                t.pushed += size;
                t.writing.add(seq);
                Waiter w = new Waiter(id, seq, block, size, done);
                if (t.waiters.isEmpty() && admission.fitsNow(t, size)) {
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
        t.held += w.size();
        used += w.size();
        placement.place(t, w);
    }

    /** The bytes of a held block (the caller releases them), or empty if the store does not hold it. */
    public CompletableFuture<Optional<ByteBuf>> get(TransferId id, long seq) {
        return placement.get(id, seq);
    }

    /**
     * A held block for sending: its memory as {@link #get} gives it, or for a spilled block a region of its file that
     * the kernel sends without a copy through the JVM ({@code sendfile}); the caller releases it.
     */
    public CompletableFuture<Optional<ReferenceCounted>> getForSending(TransferId id, long seq) {
        return placement.getForSending(id, seq);
    }

    /** Size of a held block and whether reading it needs the disk; empty if not held. */
    public synchronized Optional<HeldBlock> held(TransferId id, long seq) {
        Transfer t = transfers.get(id);
        Held h = t == null ? null : t.blocks.get(seq);
        return h == null ? Optional.empty() : Optional.of(new HeldBlock(h.size(), h.memory() == null));
    }

    /** Which of {@code seqs} the store holds, in the order asked; frees nothing and is no activity of the transfer. */
    public CompletableFuture<List<Long>> holds(TransferId id, List<Long> seqs) {
        return placement.holds(id, seqs);
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
                    t.bytes -= h.size();
                    freed.add(h);
                }
            }
        }
        freed.forEach(h -> placement.free(t, h));
        return freed.size();
    }

    /** Drops a transfer with all its blocks; returns whether it was open. */
    public boolean abort(TransferId id) {
        Transfer t;
        synchronized (this) {
            t = transfers.remove(id);
            if (t != null) {
                admission.unreserve(t);
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
                    admission.unreserve(t);
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
        return admission.shortfall(owner, retained, space);
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

    /** Bytes of blocks held or being stored, in memory and on disk. */
    public synchronized long used() {
        return used;
    }

    /** Bytes reserved by the open transfers (at most the quota). */
    public synchronized long reserved() {
        return admission.total();
    }

    public synchronized long memoryUsed() {
        return placement.memoryUsed();
    }

    /** Transfers open now, retained ones included. */
    public synchronized int openTransfers() {
        return transfers.size();
    }

    /** Retained transfers open now. */
    public synchronized int retainedTransfers() {
        return (int) transfers.values().stream().filter(t -> t.retained).count();
    }

    /** Puts waiting for space: their senders are held back until blocks are freed or their transfers end. */
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
            all.forEach(admission::unreserve);
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

    /** The open transfer {@code id}, or null (called with the lock held). */
    Transfer current(TransferId id) {
        return transfers.get(id);
    }

    Instant now() {
        return clock.instant();
    }

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
                held.forEach(h -> placement.free(t, h));
            });
        } else {
            held.forEach(h -> placement.free(t, h));
        }
        for (Waiter w : cancelled) {
            w.block().release();
            w.done().completeExceptionally(new StoreException(StoreException.Reason.UNKNOWN_TRANSFER,
                    "transfer " + t.id + " was closed while block " + w.seq() + " waited for space"));
        }
    }

    /**
     * Returns the bytes of a block of {@code t} that is gone (and its memory), and admits the transfer's waiting
     * puts that fit now, in arrival order; a finished transfer gives the bytes back to the relay, and ends once it
     * holds nothing. {@code t} is null when the transfer is no longer open.
     */
    void release(Transfer t, long bytes, long memory) {
        synchronized (this) {
            used -= bytes;
            placement.released(memory);
            if (t == null) {
                return;
            }
            t.held -= bytes;
            if (t.finished && transfers.get(t.id) == t) {
                admission.shrink(t, bytes); // its server pushes no more: the space goes back to the relay
            }
            while (!t.waiters.isEmpty() && admission.fitsNow(t, t.waiters.peek().size())) {
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
}

package io.fsp.relay.store;

import io.fsp.relay.store.Transfer.Held;
import io.fsp.relay.store.Transfer.Waiter;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCounted;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where an admitted block is held: in memory while the memory budget allows, else in its file ({@link SpillFiles}); a
 * retained transfer's block always in its file, forced to disk. File reads, writes and deletes run on the disk
 * executor, never on a caller's event loop. Its state is guarded by the store's lock.
 */
final class Placement {
    /** What a held block may keep alive beyond its own bytes: a relay frame's header and block prefix, and then some. */
    static final int MAX_PINNED_BYTES = 64;
    private static final Logger log = LoggerFactory.getLogger(BlockStore.class);

    private final BlockStore store;
    private final StoreConfig config;
    private final Executor disk;
    private final ByteBufAllocator alloc;
    private final SpillFiles files;
    /** Bytes of the blocks held in memory; guarded by the store. */
    private long memoryUsed;

    Placement(BlockStore store, StoreConfig config, Executor disk, ByteBufAllocator alloc, SpillFiles files) {
        this.store = store;
        this.config = config;
        this.disk = disk;
        this.alloc = alloc;
        this.files = files;
    }

    long memoryUsed() {
        return memoryUsed;
    }

    /**
     * Holds the block of {@code w}: keep it in memory if the budget allows, else write it to disk; a retained
     * transfer's block always goes to disk, forced. Called with the store's lock held; the disk write runs outside it.
     */
    void place(Transfer t, Waiter w) {
        if (!t.retained && memoryUsed + w.size() <= config.memoryBytes()) {
            memoryUsed += w.size();
            ByteBuf copy = ownBuffer(w.block(), w.size()) ? w.block() : copyOf(w.block(), w.size());
            t.writing.remove(w.seq());
            t.blocks.put(w.seq(), new Held(copy, null, w.size()));
            t.bytes += w.size();
            // Runs under the store's lock: continuations must only hand over to their own thread (the session
            // handler re-schedules onto its event loop), never call back into the store inline.
            w.done().complete(null);
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
        Path file = files.blockFile(w.id(), w.seq());
        try {
            files.write(file, w.block(), force);
        } catch (IOException e) {
            log.warn("cannot spill block {} of transfer {} to {}: {}", w.seq(), w.id(), file, e.toString());
            SpillFiles.deleteQuietly(file);
            Transfer t;
            synchronized (store) {
                t = store.current(w.id());
                if (t != null) {
                    t.writing.remove(w.seq());
                    t.pushed -= w.size(); // not stored: the server may push it again
                }
            }
            store.release(t, w.size(), 0);
            w.block().release();
            w.done().completeExceptionally(new StoreException(StoreException.Reason.FAILED,
                    "cannot store block " + w.seq() + ": " + e.getMessage(), e));
            return;
        }
        w.block().release();
        boolean kept;
        Transfer t;
        synchronized (store) {
            t = store.current(w.id());
            kept = t != null && t.writing.remove(w.seq());
            if (kept) {
                t.blocks.put(w.seq(), new Held(null, file, w.size()));
                t.bytes += w.size();
            }
        }
        if (kept) {
            w.done().complete(null);
        } else {
            // The transfer was aborted or expired while the block was being written.
            SpillFiles.deleteQuietly(file);
            store.release(t, w.size(), 0);
            w.done().completeExceptionally(new StoreException(StoreException.Reason.UNKNOWN_TRANSFER,
                    "transfer " + w.id() + " was closed while block " + w.seq() + " was stored"));
        }
    }

    /** Frees a block gone from its transfer: its memory now, its file on the disk executor. */
    void free(Transfer t, Held h) {
        if (h.memory() != null) {
            h.memory().release();
            store.release(t, h.size(), h.size());
        } else {
            disk.execute(() -> {
                SpillFiles.deleteQuietly(h.file());
                store.release(t, h.size(), 0);
            });
        }
    }

    /** Memory given back by a block gone (called with the store's lock held). */
    void released(long memory) {
        memoryUsed -= memory;
    }

    /** How a spilled block is taken from its file. */
    interface Spilled<T> {
        T take(Path file, int size) throws IOException;
    }

    /** The bytes of a held block (the caller releases them); see {@link BlockStore#get}. */
    CompletableFuture<Optional<ByteBuf>> get(TransferId id, long seq) {
        return held(id, seq, b -> b, files::read);
    }

    /**
     * A held block for sending, its memory or a region of its file. The file is opened on the disk executor, so a block
     * confirmed meanwhile is still sent whole (or is empty if it was gone before).
     */
    CompletableFuture<Optional<ReferenceCounted>> getForSending(TransferId id, long seq) {
        return held(id, seq, b -> b, files::region);
    }

    /** A held block: {@code inMemory} of its memory, or {@code spilled} of its file on the disk executor. */
    private <T> CompletableFuture<Optional<T>> held(TransferId id, long seq, Function<ByteBuf, T> inMemory,
                                                    Spilled<T> spilled) {
        Held h;
        synchronized (store) {
            Transfer t = store.current(id);
            h = t == null ? null : t.blocks.get(seq);
            if (t != null) {
                t.touch(store.now());
            }
            if (h != null && h.memory() != null) {
                return CompletableFuture.completedFuture(Optional.of(inMemory.apply(h.memory().retainedDuplicate())));
            }
        }
        if (h == null) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        CompletableFuture<Optional<T>> result = new CompletableFuture<>();
        disk.execute(() -> {
            try {
                result.complete(Optional.of(spilled.take(h.file(), h.size())));
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

    /**
     * Which of {@code seqs} are held, in the order asked: a block in memory, or one whose file is there with its length
     * (looked at on the disk executor).
     */
    CompletableFuture<List<Long>> holds(TransferId id, List<Long> seqs) {
        Map<Long, Held> found = new LinkedHashMap<>();
        synchronized (store) {
            Transfer t = store.current(id);
            for (long seq : t == null ? List.<Long>of() : seqs) {
                Held h = t.blocks.get(seq);
                if (h != null) {
                    found.put(seq, h);
                }
            }
        }
        if (found.values().stream().allMatch(h -> h.memory() != null)) {
            return CompletableFuture.completedFuture(List.copyOf(found.keySet()));
        }
        CompletableFuture<List<Long>> result = new CompletableFuture<>();
        disk.execute(() -> {
            List<Long> there = new ArrayList<>();
            found.forEach((seq, h) -> {
                if (h.memory() != null || onDisk(h)) {
                    there.add(seq);
                }
            });
            result.complete(there);
        });
        return result;
    }

    private static boolean onDisk(Held h) {
        try {
            return Files.size(h.file()) == h.size();
        } catch (IOException e) {
            return false; // confirmed or expired meanwhile, or lost
        }
    }
}

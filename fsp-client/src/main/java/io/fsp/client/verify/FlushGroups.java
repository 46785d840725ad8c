package io.fsp.client.verify;

import io.fsp.client.write.FileSystemSync;
import io.fsp.client.write.PositionalWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;

/**
 * The flush stage of {@link FiverVerifier}: makes written blocks durable in groups, on demand. As soon as some written
 * block waits for nothing but its flush (its hash is done, or the mode does not hash), or a lot of written data is not
 * flushed yet, everything written so far is taken as one group, and one {@code fdatasync} per file (or one syncfs)
 * covers it all (group commit). When hashing is the slower stage, one flush then covers the many blocks the writer is
 * ahead by. Blocks flushed and hashed go on to the verdict.
 */
final class FlushGroups {
    /** Its warnings are the verifier's, under its name. */
    private static final Logger log = LoggerFactory.getLogger(FiverVerifier.class);
    /** Flush at the latest when this much written data is not flushed, so dirty data stays bounded. */
    private static final long EAGER_FLUSH_BYTES = 256L << 20;
    /**
     * Files of one flush group synced at once. A file system writes what many fdatasync calls ask for together,
     * so a tree of small files syncs far sooner with many calls under way than one after another.
     */
    private static final int SYNC_THREADS = 32;
    /**
     * A flush group of at least this many files is made durable with one sync of the file system (syncfs) rather
     * than a sync of each file and directory: for small files it costs a fraction of those. Only where every file of
     * the group is on the destination's file system, and through a descriptor opened before the group's first write
     * started ({@link SyncPoint}); else file by file.
     */
    private static final int SYNC_FILE_SYSTEM_FILES = 64;

    /**
     * A descriptor of the destination's file system for syncfs (see {@link FileSystemSync}), opened when a flush group
     * is taken, so before the writes of the next group start, and the blocks whose write started while it was the
     * newest and that wait for their flush. A group syncs through the oldest one of its blocks, and each one is synced
     * at most once: a write-back error is reported once per descriptor. Guarded by the lock.
     */
    static final class SyncPoint {
        final FileSystemSync fs;
        final long number;
        int users;
        boolean synced;

        SyncPoint(FileSystemSync fs, long number) {
            this.fs = fs;
            this.number = number;
        }
    }

    private final PositionalWriter writer;
    private final Consumer<VerificationEvent> events;
    private final Consumer<List<PendingBlock>> ready;
    private final Runnable end;
    /** Guards the state below and the written/hashed/flushed flags of every block. */
    private final Object lock = new Object();
    /** Written and not yet taken into a flush. */
    private final List<PendingBlock> unflushed = new ArrayList<>();
    /** How many of {@link #unflushed} wait for nothing but the flush. */
    private int due;
    private long unflushedBytes;
    private boolean stopping;
    /** The caller has submitted its last block for now: flush what is written without waiting for demand. */
    private boolean draining;
    /** The descriptor blocks that start to be written now sync through; null where syncfs is not used. */
    private SyncPoint syncPoint;
    private long syncPoints;
    /** fdatasync of the files of a flush group, several at once. */
    private final ExecutorService syncers = Executors.newFixedThreadPool(SYNC_THREADS, FiverVerifier.threads("fiver-sync"));
    private final Thread flusher;

    /**
     * @param ready takes blocks once it is flushed and hashed, on the flusher's thread or a hasher's
     * @param end runs on the flusher's thread after the last group, once {@link #stop} was called
     */
    FlushGroups(PositionalWriter writer, Consumer<VerificationEvent> events, Consumer<List<PendingBlock>> ready,
                Runnable end) {
        this.writer = writer;
        this.events = events;
        this.ready = ready;
        this.end = end;
        if (writer.canSyncFileSystem()) {
            syncPoint = newSyncPoint();
        }
        this.flusher = FiverVerifier.threads("fiver-flush").newThread(this::flushLoop);
        this.flusher.start();
    }

    /** The block's write starts now: it syncs through the newest descriptor. */
    void writing(PendingBlock job) {
        synchronized (lock) {
            job.syncPoint = syncPoint;
            if (syncPoint != null) {
                syncPoint.users++;
            }
        }
    }

    /** The block's write is done (or failed): it waits for a flush. */
    void written(PendingBlock job) {
        synchronized (lock) {
            job.written = true;
            unflushed.add(job);
            unflushedBytes += job.block.length();
            if (job.hashed) {
                due++;
            }
            if (due > 0 || unflushedBytes >= EAGER_FLUSH_BYTES || draining) {
                lock.notifyAll();
            }
        }
    }

    /** The block's hash is done: on to the verdict if it is flushed already, else its flush is due. */
    void hashed(PendingBlock job) {
        boolean flushed = false;
        synchronized (lock) {
            job.hashed = true;
            if (job.flushed) {
                flushed = true;
            } else if (job.written && !job.takenForFlush) {
                due++;
                lock.notifyAll();
            }
        }
        if (flushed) {
            ready.accept(List.of(job));
        }
    }

    /** While on, whatever is written is flushed without waiting for demand: no more blocks are coming for now. */
    void draining(boolean on) {
        synchronized (lock) {
            draining = on;
            if (on) {
                lock.notifyAll();
            }
        }
    }

    /** Flushes what is left, then stops. */
    void stop() throws InterruptedException {
        synchronized (lock) {
            stopping = true;
            lock.notifyAll();
        }
        flusher.join();
        syncers.shutdown();
    }

    private void flushLoop() {
        while (true) {
            List<PendingBlock> group;
            synchronized (lock) {
                while (!stopping && due == 0 && unflushedBytes < EAGER_FLUSH_BYTES && !(draining && !unflushed.isEmpty())) {
                    try {
                        lock.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (stopping && unflushed.isEmpty()) {
                    break;
                }
                group = new ArrayList<>(unflushed);
                unflushed.clear();
                due = 0;
                unflushedBytes = 0;
                for (PendingBlock job : group) {
                    job.takenForFlush = true;
                }
                if (syncPoint != null && syncPoint.users > 0) {
                    syncPoint = newSyncPoint(); // the next group starts now
                }
            }
            if (group.isEmpty()) {
                continue;
            }
            // Everything in the group finished writing before this point, so one fdatasync per file
            // issued now covers all of it (group commit).
            Map<String, List<PendingBlock>> byFile = new LinkedHashMap<>();
            for (PendingBlock job : group) {
                if (job.failure == null) {
                    for (BlockRef.Part part : job.block.parts()) { // each part in a file of its own
                        byFile.computeIfAbsent(part.path(), p -> new ArrayList<>()).add(job);
                    }
                }
            }
            flush(byFile, syncPointOf(group));
            List<PendingBlock> done = new ArrayList<>(group.size());
            synchronized (lock) {
                for (PendingBlock job : group) {
                    release(job);
                    job.flushed = true;
                    if (job.hashed) {
                        done.add(job);
                    }
                }
            }
            ready.accept(done);
        }
        synchronized (lock) {
            if (syncPoint != null) {
                syncPoint.fs.close();
                syncPoint = null;
            }
        }
        end.run();
    }

    /** A new {@link SyncPoint}, or null (no more syncfs) if the destination cannot be opened for it. Under the lock. */
    private SyncPoint newSyncPoint() {
        try {
            return new SyncPoint(writer.openFileSystemSync(), ++syncPoints);
        } catch (IOException e) {
            log.warn("syncing file by file from now on: {}", e.getMessage());
            return null;
        }
    }

    /**
     * The descriptor a syncfs of {@code group} goes through: the oldest of its blocks', opened before any of their
     * writes started; null if one has none or it was synced already (it would not report an error again).
     */
    private SyncPoint syncPointOf(List<PendingBlock> group) {
        synchronized (lock) {
            SyncPoint oldest = null;
            for (PendingBlock job : group) {
                if (job.syncPoint == null) {
                    return null;
                }
                if (oldest == null || job.syncPoint.number < oldest.number) {
                    oldest = job.syncPoint;
                }
            }
            return oldest == null || oldest.synced ? null : oldest;
        }
    }

    /** The block is flushed: its descriptor is closed when no other block needs it. Under the lock. */
    private void release(PendingBlock job) {
        SyncPoint p = job.syncPoint;
        job.syncPoint = null;
        if (p != null && --p.users == 0 && p != syncPoint) {
            p.fs.close();
        }
    }

    /**
     * One fdatasync per file of the group, several at once (the file system and the device serve them together,
     * so a group of small files costs little more than one of them), then the names of the files created
     * meanwhile, one sync per directory.
     */
    private void flush(Map<String, List<PendingBlock>> byFile, SyncPoint point) {
        if (byFile.size() >= SYNC_FILE_SYSTEM_FILES && point != null) {
            synchronized (lock) {
                point.synced = true;
            }
            try {
                if (writer.syncFileSystem(point.fs, byFile.keySet())) {
                    byFile.keySet().forEach(file -> events.accept(new VerificationEvent.Flushed(file)));
                    return;
                }
            } catch (IOException | RuntimeException e) {
                byFile.values().forEach(jobs -> failAll(jobs, "flush failed: " + e.getMessage()));
                return;
            }
            // a file is on another file system than the destination's (a mount point inside it): file by file
        }
        List<Map.Entry<String, CompletableFuture<Void>>> flushes = new ArrayList<>(byFile.size());
        for (String file : byFile.keySet()) {
            // one file (a large one's blocks) is synced on this thread: no hand-off
            flushes.add(Map.entry(file, CompletableFuture.runAsync(() -> forceData(file),
                    byFile.size() == 1 ? Runnable::run : syncers)));
        }
        List<String> flushed = new ArrayList<>(byFile.size());
        for (Map.Entry<String, CompletableFuture<Void>> f : flushes) {
            try {
                f.getValue().join();
                flushed.add(f.getKey());
                events.accept(new VerificationEvent.Flushed(f.getKey()));
            } catch (CompletionException e) {
                failAll(byFile.get(f.getKey()), "flush failed: " + e.getCause().getMessage());
            }
        }
        try {
            writer.syncEntries(flushed, syncers);
        } catch (IOException | RuntimeException e) {
            flushed.forEach(file -> failAll(byFile.get(file), "syncing the file's directory failed: " + e.getMessage()));
        }
    }

    private void forceData(String file) {
        try {
            writer.forceData(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e.getMessage(), e);
        }
    }

    private static void failAll(List<PendingBlock> jobs, String failure) {
        for (PendingBlock job : jobs) {
            job.failure = failure;
        }
    }
}

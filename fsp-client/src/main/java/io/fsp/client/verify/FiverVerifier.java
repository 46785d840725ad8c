package io.fsp.client.verify;

import io.fsp.checksum.Digest;
import io.fsp.checksum.Hasher;
import io.fsp.client.write.FileSystemSync;
import io.fsp.client.write.PositionalWriter;
import io.fsp.client.journal.JournalRecord;
import io.fsp.client.journal.ResumeJournal;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The sink for received plaintext blocks: writes each block at its offset and verifies it.
 *
 * <p>Mode fiver (paper 000, Algorithm 2; paper 002 §4): the buffer a block arrives in is written by a
 * writer thread and, at the same time, hashed by a hashing thread (a block of at most 64 KiB by the thread
 * that wrote it, after the write: handing it over would cost as much); the file is never read back. The
 * buffer is released when both are done. The file is flushed ({@code fdatasync}) once a written block
 * waits for nothing else; only when both the flush and the hash are done is the digest compared and
 * the verdict issued, so a power loss can never leave a block reported verified that is not on disk
 * (paper 002 §3, Observation 2). Flushes are shared: one flush covers every block of the file whose
 * write finished before it started, so when hashing is the slower stage one flush covers all the
 * blocks the writer is ahead by. Verdicts are issued in groups by one thread, which appends each group
 * to the journal with one fsync.
 *
 * <p>Mode riva (paper 001 §4): after the flush the block's range is read back around the page cache
 * ({@link RivaVerifier}) and that is what is hashed, so undetected write errors are caught.
 *
 * <p>Mode off: written and flushed, reported {@link BlockVerdict.Outcome#WRITTEN}.
 *
 * <p>Verified (and, in mode off, written) blocks are appended to the resume journal, if one is given,
 * after the flush and before the verdict is issued.
 *
 * <p>{@link #submit} blocks while {@code queueDepth} buffers are in use: that is the back-pressure a
 * collector passes on to its sources. Call it from a thread that may block, not from an event loop.
 */
public final class FiverVerifier implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FiverVerifier.class);
    /** Flush at the latest when this much written data is not flushed, so dirty data stays bounded. */
    private static final long EAGER_FLUSH_BYTES = 256L << 20;
    /**
     * Blocks up to this size are hashed by the thread that wrote them: hashing 64 KiB takes about as long as
     * handing the block to another thread and waking it, and a tree of small files has a block per file.
     */
    private static final int HASHED_BY_WRITER_BYTES = 64 << 10;
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

    private final PositionalWriter writer;
    private final VerifierConfig config;
    private final ResumeJournal journal;
    private final Consumer<VerificationEvent> listener;
    private final Semaphore buffersInUse;
    private final ExecutorService writers;
    private final ExecutorService hashers;
    private final RivaVerifier riva;
    private final RivaVerifier resumedReader = new RivaVerifier();
    private final ThreadLocal<Hasher> hasher;
    /** Guards the flush state below and the written/hashed/flushed flags of every job. */
    private final Object flushLock = new Object();
    /** Written and not yet taken into a flush. */
    private final List<Job> unflushed = new ArrayList<>();
    /** How many of {@link #unflushed} wait for nothing but the flush. */
    private int due;
    private long unflushedBytes;
    private boolean stopping;
    /** The caller has submitted its last block for now: flush what is written without waiting for demand. */
    private boolean draining;
    /** The descriptor blocks that start to be written now sync through; null where syncfs is not used. */
    private SyncPoint syncPoint;
    private long syncPoints;
    private final LinkedBlockingQueue<Job> toDecide = new LinkedBlockingQueue<>();
    private final Thread flusher;
    /** fdatasync of the files of a flush group, several at once. */
    private final ExecutorService syncers;
    private final Thread decider;
    private final ConcurrentLinkedQueue<Runnable> capacityWaiters = new ConcurrentLinkedQueue<>();
    private final Object idle = new Object();
    private long outstanding;
    private volatile boolean closed;

    /**
     * A descriptor of the destination's file system for syncfs (see {@link FileSystemSync}), opened when a flush group
     * is taken, so before the writes of the next group start, and the blocks whose write started while it was the
     * newest and that wait for their flush. A group syncs through the oldest one of its blocks, and each one is synced
     * at most once: a write-back error is reported once per descriptor. Guarded by flushLock.
     */
    private static final class SyncPoint {
        final FileSystemSync fs;
        final long number;
        int users;
        boolean synced;

        SyncPoint(FileSystemSync fs, long number) {
            this.fs = fs;
            this.number = number;
        }
    }

    /** A block between submit and verdict. */
    private static final class Job {
        final BlockRef block;
        final ByteBuffer data;
        final byte[] expected;
        final Runnable release;
        final CompletableFuture<BlockVerdict> verdict = new CompletableFuture<>();
        /** Write and hash: when both are done the buffer is released. */
        final AtomicInteger bufferUsers;
        // Guarded by flushLock.
        boolean written;
        boolean hashed;
        boolean takenForFlush;
        boolean flushed;
        SyncPoint syncPoint;
        volatile byte[] actual = new byte[0];
        volatile String failure;

        Job(BlockRef block, ByteBuffer data, byte[] expected, Runnable release, boolean hashed) {
            this.block = block;
            this.data = data;
            this.expected = expected;
            this.release = release;
            this.bufferUsers = new AtomicInteger(hashed ? 2 : 1);
            this.hashed = !hashed; // nothing to wait for when the mode does not hash buffers
        }
    }

    private static final Job STOP = new Job(new BlockRef("-", 0, 0), ByteBuffer.allocate(0), new byte[0], () -> { }, false);

    public FiverVerifier(PositionalWriter writer, VerifierConfig config) {
        this(writer, config, null, event -> { });
    }

    /**
     * @param journal where verified blocks are recorded for resume, or null for none
     * @param listener receives every {@link VerificationEvent} on the verifier's threads
     */
    public FiverVerifier(PositionalWriter writer, VerifierConfig config, ResumeJournal journal,
                         Consumer<VerificationEvent> listener) {
        this.writer = Objects.requireNonNull(writer, "writer");
        this.config = Objects.requireNonNull(config, "config");
        this.journal = journal;
        this.listener = Objects.requireNonNull(listener, "listener");
        this.buffersInUse = new Semaphore(config.queueDepth());
        this.writers = Executors.newFixedThreadPool(config.writerThreads(), threads("fiver-write"));
        this.hashers = config.mode() == VerificationMode.FIVER
                ? Executors.newFixedThreadPool(config.hashThreads(), threads("fiver-hash")) : null;
        this.riva = config.mode() == VerificationMode.RIVA ? new RivaVerifier() : null;
        this.hasher = ThreadLocal.withInitial(config.algorithm()::newHasher);
        this.syncers = Executors.newFixedThreadPool(SYNC_THREADS, threads("fiver-sync"));
        if (writer.canSyncFileSystem()) {
            syncPoint = newSyncPoint();
        }
        this.flusher = threads("fiver-flush").newThread(this::flushLoop);
        this.decider = threads("fiver-verdict").newThread(this::decideLoop);
        this.flusher.start();
        this.decider.start();
    }

    private static ThreadFactory threads(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    public VerifierConfig config() {
        return config;
    }

    public PositionalWriter writer() {
        return writer;
    }

    /**
     * Hands over one plaintext block. The verifier reads {@code data} (position to limit) from two
     * threads at once and calls {@code release} exactly once when it no longer needs the buffer; the
     * caller must not touch the buffer until then. Blocks while {@code queueDepth} buffers are in use.
     *
     * @param expectedDigest the digest of the block's plaintext as announced by the server
     * @return completes with the verdict, after the listener has seen it
     */
    public CompletableFuture<BlockVerdict> submit(BlockRef block, ByteBuffer data, byte[] expectedDigest, Runnable release)
            throws InterruptedException {
        check(block, data, release);
        buffersInUse.acquire();
        return start(block, data, expectedDigest, release);
    }

    /**
     * The non-blocking form of {@link #submit(BlockRef, ByteBuf, Digest)} for callers on an event loop:
     * returns null when {@code queueDepth} buffers are in use, and the buffer then stays the caller's.
     * Stop reading, register {@link #onCapacity}, and try again when it runs.
     */
    public CompletableFuture<BlockVerdict> trySubmit(BlockRef block, ByteBuf plaintext, Digest expected) {
        checkAlgorithm(plaintext, expected);
        ByteBuffer view = nioView(plaintext);
        check(block, view, plaintext::release);
        if (!buffersInUse.tryAcquire()) {
            return null;
        }
        return start(block, view, expected.value(), plaintext::release);
    }

    /**
     * Runs {@code task} once, on a verifier thread, as soon as a buffer slot is free (at once if one is
     * free now). Event-loop callers hand the actual work back to their loop from it.
     */
    public void onCapacity(Runnable task) {
        capacityWaiters.add(Objects.requireNonNull(task, "task"));
        if (buffersInUse.availablePermits() > 0) {
            runCapacityWaiters();
        }
    }

    private void runCapacityWaiters() {
        Runnable task;
        while ((task = capacityWaiters.poll()) != null) {
            try {
                task.run();
            } catch (RuntimeException e) {
                log.warn("capacity callback failed", e);
            }
        }
    }

    private void check(BlockRef block, ByteBuffer data, Runnable release) {
        Objects.requireNonNull(release, "release");
        if (data.remaining() != block.length()) {
            release.run();
            throw new IllegalArgumentException("data: " + data.remaining() + " bytes (expected: " + block.length() + " for " + block + ")");
        }
        if (closed) {
            release.run();
            throw new IllegalStateException("verifier is closed");
        }
    }

    /** Called with a buffer slot held. */
    private CompletableFuture<BlockVerdict> start(BlockRef block, ByteBuffer data, byte[] expectedDigest, Runnable release) {
        synchronized (idle) {
            outstanding++;
        }
        boolean hashed = config.mode() == VerificationMode.FIVER;
        Job job = new Job(block, data.duplicate(), expectedDigest.clone(), release, hashed);
        if (hashed && block.length() <= HASHED_BY_WRITER_BYTES) {
            writers.execute(() -> {
                write(job);
                hash(job);
            });
        } else {
            writers.execute(() -> write(job));
            if (hashed) {
                hashers.execute(() -> hash(job));
            }
        }
        return job.verdict;
    }

    /**
     * Hands over one plaintext block held in a Netty buffer; the verifier releases it. The buffer's
     * readable bytes are the block.
     */
    public CompletableFuture<BlockVerdict> submit(BlockRef block, ByteBuf plaintext, byte[] expectedDigest)
            throws InterruptedException {
        return submit(block, nioView(plaintext), expectedDigest, plaintext::release);
    }

    private static ByteBuffer nioView(ByteBuf plaintext) {
        return plaintext.nioBufferCount() == 1
                ? plaintext.nioBuffer()
                : ByteBuffer.wrap(ByteBufUtil.getBytes(plaintext)); // rare: a composite buffer
    }

    /**
     * Hands over one plaintext block held in a Netty buffer, with the digest the server announced for
     * it; the verifier releases the buffer.
     *
     * @throws IllegalArgumentException if the digest is of another algorithm than the verifier's
     */
    public CompletableFuture<BlockVerdict> submit(BlockRef block, ByteBuf plaintext, Digest expected)
            throws InterruptedException {
        checkAlgorithm(plaintext, expected);
        return submit(block, plaintext, expected.value());
    }

    private void checkAlgorithm(ByteBuf plaintext, Digest expected) {
        if (config.algorithm() != expected.algorithm()) {
            plaintext.release();
            throw new IllegalArgumentException("digest: " + expected.algorithm().label()
                    + " (expected: " + config.algorithm().label() + ", the algorithm the verifier was configured with)");
        }
    }

    private void write(Job job) {
        synchronized (flushLock) {
            job.syncPoint = syncPoint;
            if (syncPoint != null) {
                syncPoint.users++;
            }
        }
        try {
            int at = job.data.position();
            for (BlockRef.Part part : job.block.parts()) {
                writer.write(part.path(), part.offset(), job.data.duplicate().position(at).limit(at + part.length()));
                at += part.length();
            }
            emit(new VerificationEvent.Written(job.block));
        } catch (IOException | RuntimeException e) {
            job.failure = "write failed: " + e.getMessage();
        }
        bufferDone(job);
        synchronized (flushLock) {
            job.written = true;
            unflushed.add(job);
            unflushedBytes += job.block.length();
            if (job.hashed) {
                due++;
            }
            if (due > 0 || unflushedBytes >= EAGER_FLUSH_BYTES || draining) {
                flushLock.notifyAll();
            }
        }
    }

    private void hash(Job job) {
        try {
            Hasher h = hasher.get();
            h.update(job.data);
            job.actual = h.finish().value();
            emit(new VerificationEvent.Hashed(job.block));
        } catch (RuntimeException e) {
            job.failure = "hashing failed: " + e;
        }
        bufferDone(job);
        boolean ready = false;
        synchronized (flushLock) {
            job.hashed = true;
            if (job.flushed) {
                ready = true;
            } else if (job.written && !job.takenForFlush) {
                due++;
                flushLock.notifyAll();
            }
        }
        if (ready) {
            toDecide.add(job);
        }
    }

    /** When write and hash are both done the buffer goes back to its owner. */
    private void bufferDone(Job job) {
        if (job.bufferUsers.decrementAndGet() != 0) {
            return;
        }
        try {
            job.release.run();
        } catch (RuntimeException e) {
            log.warn("releasing the buffer of {} failed", job.block, e);
        }
        buffersInUse.release();
        if (!capacityWaiters.isEmpty()) {
            runCapacityWaiters();
        }
    }

    /**
     * Flushes on demand: as soon as some written block waits for nothing but its flush (its hash is
     * done, or the mode does not hash), or a lot of written data is not flushed yet. When hashing is
     * the slower stage, one flush then covers the many blocks the writer is ahead by, instead of one
     * {@code fdatasync} per block.
     */
    private void flushLoop() {
        while (true) {
            List<Job> group;
            synchronized (flushLock) {
                while (!stopping && due == 0 && unflushedBytes < EAGER_FLUSH_BYTES && !(draining && !unflushed.isEmpty())) {
                    try {
                        flushLock.wait();
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
                for (Job job : group) {
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
            Map<String, List<Job>> byFile = new LinkedHashMap<>();
            for (Job job : group) {
                if (job.failure == null) {
                    for (BlockRef.Part part : job.block.parts()) { // each part in a file of its own
                        byFile.computeIfAbsent(part.path(), p -> new ArrayList<>()).add(job);
                    }
                }
            }
            flush(byFile, syncPointOf(group));
            List<Job> ready = new ArrayList<>(group.size());
            synchronized (flushLock) {
                for (Job job : group) {
                    release(job);
                    job.flushed = true;
                    if (job.hashed) {
                        ready.add(job);
                    }
                }
            }
            toDecide.addAll(ready);
        }
        synchronized (flushLock) {
            if (syncPoint != null) {
                syncPoint.fs.close();
                syncPoint = null;
            }
        }
        toDecide.add(STOP);
    }

    /** A new {@link SyncPoint}, or null (no more syncfs) if the destination cannot be opened for it. Under flushLock. */
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
    private SyncPoint syncPointOf(List<Job> group) {
        synchronized (flushLock) {
            SyncPoint oldest = null;
            for (Job job : group) {
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

    /** The block is flushed: its descriptor is closed when no other block needs it. Under flushLock. */
    private void release(Job job) {
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
    private void flush(Map<String, List<Job>> byFile, SyncPoint point) {
        if (byFile.size() >= SYNC_FILE_SYSTEM_FILES && point != null) {
            synchronized (flushLock) {
                point.synced = true;
            }
            try {
                if (writer.syncFileSystem(point.fs, byFile.keySet())) {
                    byFile.keySet().forEach(file -> emit(new VerificationEvent.Flushed(file)));
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
                emit(new VerificationEvent.Flushed(f.getKey()));
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

    private static void failAll(List<Job> jobs, String failure) {
        for (Job job : jobs) {
            job.failure = failure;
        }
    }

    /**
     * Takes blocks that are flushed (and hashed), in groups: re-reads them in mode riva, appends the
     * group to the journal with one fsync, then issues the verdicts.
     */
    private void decideLoop() {
        boolean running = true;
        while (running) {
            List<Job> group = new ArrayList<>();
            try {
                group.add(toDecide.take());
            } catch (InterruptedException e) {
                return;
            }
            toDecide.drainTo(group);
            running = !group.remove(STOP);
            if (group.isEmpty()) {
                continue;
            }
            if (riva != null) {
                reread(group);
            }
            decide(group);
        }
    }

    private void reread(List<Job> group) {
        for (Job job : group) {
            if (job.failure != null) {
                continue;
            }
            try {
                job.actual = hashFromDisk(riva, job.block, hasher.get());
                emit(new VerificationEvent.Reread(job.block));
            } catch (IOException | RuntimeException e) {
                job.failure = "re-read from disk failed: " + e.getMessage();
            }
        }
    }

    /** Runs after the flush covering every block of the group: compare, journal, then report. */
    private void decide(List<Job> group) {
        List<BlockVerdict> verdicts = new ArrayList<>(group.size());
        List<JournalRecord> durable = new ArrayList<>();
        for (Job job : group) {
            BlockVerdict v = verdictOf(job);
            verdicts.add(v);
            if (v.outcome() == BlockVerdict.Outcome.VERIFIED || v.outcome() == BlockVerdict.Outcome.WRITTEN) {
                durable.add(new JournalRecord(job.block.path(), job.block.offset(), job.block.length(), job.expected));
            }
        }
        if (journal != null && !durable.isEmpty()) {
            try {
                journal.append(durable);
            } catch (IOException | RuntimeException e) {
                // Without its journal record a verified block would be fetched again after a crash,
                // and a journal that cannot be written means the transfer cannot be trusted to resume.
                for (int i = 0; i < verdicts.size(); i++) {
                    BlockVerdict v = verdicts.get(i);
                    if (v.outcome() == BlockVerdict.Outcome.VERIFIED || v.outcome() == BlockVerdict.Outcome.WRITTEN) {
                        verdicts.set(i, new BlockVerdict(v.block(), BlockVerdict.Outcome.FAILED, v.expected(), v.actual(),
                                "journal write failed: " + e.getMessage()));
                    }
                }
            }
        }
        for (int i = 0; i < group.size(); i++) {
            BlockVerdict v = verdicts.get(i);
            emit(new VerificationEvent.Verdict(v));
            group.get(i).verdict.complete(v);
        }
        synchronized (idle) {
            outstanding -= group.size();
            idle.notifyAll();
        }
    }

    private BlockVerdict verdictOf(Job job) {
        if (job.failure != null) {
            return new BlockVerdict(job.block, BlockVerdict.Outcome.FAILED, job.expected, job.actual, job.failure);
        }
        if (config.mode() == VerificationMode.OFF) {
            return new BlockVerdict(job.block, BlockVerdict.Outcome.WRITTEN, job.expected, new byte[0], "");
        }
        if (MessageDigest.isEqual(job.actual, job.expected)) {
            return new BlockVerdict(job.block, BlockVerdict.Outcome.VERIFIED, job.expected, job.actual, "");
        }
        String what = config.mode() == VerificationMode.RIVA ? "bytes read back from disk" : "bytes received";
        return new BlockVerdict(job.block, BlockVerdict.Outcome.MISMATCH, job.expected, job.actual,
                config.algorithm().label() + " of the " + what + " differs from the announced digest");
    }

    private void emit(VerificationEvent event) {
        try {
            listener.accept(event);
        } catch (RuntimeException e) {
            log.warn("verification listener failed on {}", event, e);
        }
    }

    /** Waits until every submitted block has its verdict. */
    public void drain() throws InterruptedException {
        // No more blocks are coming for now, so nothing is gained by waiting for demand: the last
        // flush then overlaps the last hashes instead of following them.
        synchronized (flushLock) {
            draining = true;
            flushLock.notifyAll();
        }
        try {
            waitIdle();
        } finally {
            synchronized (flushLock) {
                draining = false;
            }
        }
    }

    private void waitIdle() throws InterruptedException {
        synchronized (idle) {
            while (outstanding > 0) {
                idle.wait();
            }
        }
    }

    /**
     * RIVA for a block that an earlier run verified (a resumed transfer): reads its range back from the disk around
     * the page cache and hashes it again. The bytes may have been damaged since that run. Runs on the caller's
     * thread, one re-read at a time.
     *
     * @return whether what is on disk still has {@code expectedDigest}
     */
    public boolean matchesOnDisk(BlockRef block, byte[] expectedDigest) throws IOException {
        synchronized (resumedReader) {
            byte[] actual = hashFromDisk(resumedReader, block, config.algorithm().newHasher());
            return java.security.MessageDigest.isEqual(actual, expectedDigest);
        }
    }

    /** The digest of the block's bytes as {@code reader} reads them back from the disk, part after part. */
    private byte[] hashFromDisk(RivaVerifier reader, BlockRef block, Hasher h) throws IOException {
        for (BlockRef.Part part : block.parts()) {
            reader.update(writer.location(part.path()), part.offset(), part.length(), h);
        }
        return h.finish().value();
    }

    /** Waits for all verdicts, then stops the verifier's threads. The writer stays open. */
    @Override
    public void close() throws InterruptedException {
        closed = true;
        drain();
        synchronized (flushLock) {
            stopping = true;
            flushLock.notifyAll();
        }
        flusher.join();
        decider.join();
        writers.shutdown();
        syncers.shutdown();
        if (hashers != null) {
            hashers.shutdown();
        }
        for (RivaVerifier r : new RivaVerifier[] {riva, resumedReader}) {
            if (r != null) {
                try {
                    synchronized (r) {
                        r.close();
                    }
                } catch (IOException e) {
                    log.warn("closing direct-read channels failed", e);
                }
            }
        }
    }
}

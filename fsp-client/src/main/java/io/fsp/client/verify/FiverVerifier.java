package io.fsp.client.verify;

import io.fsp.checksum.Digest;
import io.fsp.checksum.Hasher;
import io.fsp.client.write.PositionalWriter;
import io.fsp.client.journal.ResumeJournal;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 *
 * <p>This class writes and hashes; {@link FlushGroups} flushes and {@link Verdicts} re-reads and decides.
 */
public final class FiverVerifier implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FiverVerifier.class);
    /**
     * Blocks up to this size are hashed by the thread that wrote them: hashing 64 KiB takes about as long as
     * handing the block to another thread and waking it, and a tree of small files has a block per file.
     */
    private static final int HASHED_BY_WRITER_BYTES = 64 << 10;

    private final PositionalWriter writer;
    private final VerifierConfig config;
    private final Consumer<VerificationEvent> listener;
    private final Semaphore buffersInUse;
    private final ExecutorService writers;
    private final ExecutorService hashers;
    private final RivaVerifier resumedReader = new RivaVerifier();
    private final ThreadLocal<Hasher> hasher;
    private final Verdicts verdicts;
    private final FlushGroups flushes;
    private final ConcurrentLinkedQueue<Runnable> capacityWaiters = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

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
        this.listener = Objects.requireNonNull(listener, "listener");
        this.buffersInUse = new Semaphore(config.queueDepth());
        this.writers = Executors.newFixedThreadPool(config.writerThreads(), threads("fiver-write"));
        this.hashers = config.mode() == VerificationMode.FIVER
                ? Executors.newFixedThreadPool(config.hashThreads(), threads("fiver-hash")) : null;
        this.hasher = ThreadLocal.withInitial(config.algorithm()::newHasher);
        this.verdicts = new Verdicts(writer, config, journal, this::emit);
        this.flushes = new FlushGroups(writer, this::emit, verdicts::add, verdicts::end);
    }

    /** Daemon threads named {@code name-N}. */
    static ThreadFactory threads(String name) {
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
        verdicts.expect();
        boolean hashed = config.mode() == VerificationMode.FIVER;
        PendingBlock job = new PendingBlock(block, data.duplicate(), expectedDigest.clone(), release, hashed);
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

    private void write(PendingBlock job) {
        flushes.writing(job);
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
        flushes.written(job);
    }

    private void hash(PendingBlock job) {
        try {
            Hasher h = hasher.get();
            h.update(job.data);
            job.actual = h.finish().value();
            emit(new VerificationEvent.Hashed(job.block));
        } catch (RuntimeException e) {
            job.failure = "hashing failed: " + e;
        }
        bufferDone(job);
        flushes.hashed(job);
    }

    /** When write and hash are both done the buffer goes back to its owner. */
    private void bufferDone(PendingBlock job) {
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
        flushes.draining(true);
        try {
            verdicts.waitIdle();
        } finally {
            flushes.draining(false);
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
            byte[] actual = resumedReader.hashFromDisk(writer, block, config.algorithm().newHasher());
            return MessageDigest.isEqual(actual, expectedDigest);
        }
    }

    /** Waits for all verdicts, then stops the verifier's threads. The writer stays open. */
    @Override
    public void close() throws InterruptedException {
        closed = true;
        drain();
        flushes.stop();
        verdicts.join();
        writers.shutdown();
        if (hashers != null) {
            hashers.shutdown();
        }
        for (RivaVerifier r : new RivaVerifier[] {verdicts.reader(), resumedReader}) {
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

package io.fsp.client.verify;

import io.fsp.checksum.Hasher;
import io.fsp.client.journal.JournalRecord;
import io.fsp.client.journal.ResumeJournal;
import io.fsp.client.write.PositionalWriter;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;

/**
 * The last stage of {@link FiverVerifier}, on one thread: takes blocks that are flushed (and hashed) in groups,
 * re-reads them from disk in mode riva, compares digests, appends the group to the journal with one fsync, then
 * issues the verdicts. Counts the blocks still without one.
 */
final class Verdicts {
    private static final PendingBlock STOP =
            new PendingBlock(new BlockRef("-", 0, 0), ByteBuffer.allocate(0), new byte[0], () -> { }, false);

    private final PositionalWriter writer;
    private final VerifierConfig config;
    private final ResumeJournal journal;
    private final Consumer<VerificationEvent> events;
    /** Reads back in mode riva; null in the other modes. */
    private final RivaVerifier riva;
    private final Hasher rereadHasher;
    private final LinkedBlockingQueue<PendingBlock> toDecide = new LinkedBlockingQueue<>();
    private final Thread decider;
    private final Object idle = new Object();
    private long outstanding;

    Verdicts(PositionalWriter writer, VerifierConfig config, ResumeJournal journal, Consumer<VerificationEvent> events) {
        this.writer = writer;
        this.config = config;
        this.journal = journal;
        this.events = events;
        this.riva = config.mode() == VerificationMode.RIVA ? new RivaVerifier() : null;
        this.rereadHasher = riva == null ? null : config.algorithm().newHasher();
        this.decider = FiverVerifier.threads("fiver-verdict").newThread(this::decideLoop);
        this.decider.start();
    }

    /** One more block will come. */
    void expect() {
        synchronized (idle) {
            outstanding++;
        }
    }

    /** Blocks that are flushed and hashed, to decide on. */
    void add(Collection<PendingBlock> blocks) {
        toDecide.addAll(blocks);
    }

    /** No more blocks: the verdict thread ends after those already added. */
    void end() {
        toDecide.add(STOP);
    }

    /** Waits until every block expected has its verdict. */
    void waitIdle() throws InterruptedException {
        synchronized (idle) {
            while (outstanding > 0) {
                idle.wait();
            }
        }
    }

    /** Waits for the verdict thread to end, after {@link #end}. */
    void join() throws InterruptedException {
        decider.join();
    }

    /** The reader of mode riva, to close; null in the other modes. */
    RivaVerifier reader() {
        return riva;
    }

    private void decideLoop() {
        boolean running = true;
        while (running) {
            List<PendingBlock> group = new ArrayList<>();
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

    private void reread(List<PendingBlock> group) {
        for (PendingBlock job : group) {
            if (job.failure != null) {
                continue;
            }
            try {
                job.actual = riva.hashFromDisk(writer, job.block, rereadHasher);
                events.accept(new VerificationEvent.Reread(job.block));
            } catch (IOException | RuntimeException e) {
                job.failure = "re-read from disk failed: " + e.getMessage();
            }
        }
    }

    /** Runs after the flush covering every block of the group: compare, journal, then report. */
    private void decide(List<PendingBlock> group) {
        List<BlockVerdict> verdicts = new ArrayList<>(group.size());
        List<JournalRecord> durable = new ArrayList<>();
        for (PendingBlock job : group) {
            BlockVerdict v = verdictOf(job);
            verdicts.add(v);
            if (isDurable(v)) {
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
                    if (isDurable(v)) {
                        verdicts.set(i, new BlockVerdict(v.block(), BlockVerdict.Outcome.FAILED, v.expected(), v.actual(),
                                "journal write failed: " + e.getMessage()));
                    }
                }
            }
        }
        for (int i = 0; i < group.size(); i++) {
            BlockVerdict v = verdicts.get(i);
            events.accept(new VerificationEvent.Verdict(v));
            group.get(i).verdict.complete(v);
        }
        synchronized (idle) {
            outstanding -= group.size();
            idle.notifyAll();
        }
    }

    private static boolean isDurable(BlockVerdict v) {
        return v.outcome() == BlockVerdict.Outcome.VERIFIED || v.outcome() == BlockVerdict.Outcome.WRITTEN;
    }

    private BlockVerdict verdictOf(PendingBlock job) {
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
}

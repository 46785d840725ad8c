package io.fsp.client.collect;

import io.fsp.block.stage.OpenedBlock;
import io.fsp.client.collect.BlockLifecycle.Action;
import io.fsp.client.collect.BlockLifecycle.Next;
import io.fsp.client.collect.DestinationFiles.RemoteFile;
import io.fsp.client.verify.BlockRef;
import io.fsp.client.verify.BlockVerdict;
import io.fsp.client.verify.FiverVerifier;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out what each block's {@link BlockLifecycle} says: fetch from a relay, wait for the direct stream,
 * re-read from disk, open, verify, queue for the origin; and reports back to the lifecycle what came of it.
 * Counts the blocks being worked on, so that a phase of the transfer (striping, an origin round) can wait until
 * every block is done or waits for the origin.
 */
final class BlockDriver implements RelaySources.Outcome, OriginFetcher.Receiver, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BlockDriver.class);

    private final TransferId transferId;
    private final TransferStatistics stats;
    private final DestinationFiles files;
    private final RelaySources relays;
    private final DirectStream direct;
    private final OriginFetcher origin;
    private final BlockOpener opener;
    private final FiverVerifier verifier;
    private final ExecutorService fetchers;
    /** Blocks being worked on (not done, not waiting for the origin). */
    private final AtomicInteger pending = new AtomicInteger();
    private volatile double firstVerifiedSeconds = -1; // from the command's start; the first block done sets it
    private final long startedMillis;
    // For the debug timeline of a run (milestone): the first block fetched and opened.
    private final AtomicBoolean firstFetched = new AtomicBoolean();
    private final AtomicBoolean firstOpened = new AtomicBoolean();

    BlockDriver(TransferId transferId, TransferStatistics stats, DestinationFiles files, RelaySources relays,
                DirectStream direct, OriginFetcher origin, BlockOpener opener, FiverVerifier verifier,
                int fetchThreads, long startedMillis) {
        this.transferId = transferId;
        this.startedMillis = startedMillis;
        this.stats = stats;
        this.files = files;
        this.relays = relays;
        this.direct = direct;
        this.origin = origin;
        this.opener = opener;
        this.verifier = verifier;
        this.fetchers = Executors.newFixedThreadPool(fetchThreads, r -> {
            Thread t = new Thread(r, "fsp-fetch");
            t.setDaemon(true);
            return t;
        });
    }

    /** A block starts being worked on: call before the first {@link #act} for it. */
    void begin() {
        pending.incrementAndGet();
    }

    /** From the JVM's start until the first block was done, in seconds; -1 if none was. */
    double firstVerifiedSeconds() {
        return firstVerifiedSeconds;
    }

    /** Does what a block's lifecycle says next. */
    void act(BlockLifecycle b, Next next) {
        next.failures().forEach(stats::failed);
        switch (next.action()) {
            case FETCH_FROM_RELAY -> relays.fetch(b, transferId, fetchers, this);
            case AWAIT_DIRECT -> direct.expect(b);
            case REREAD_FROM_DISK -> fetchers.execute(() -> reread(b));
            case QUEUE_FOR_ORIGIN -> {
                log.debug("block {} goes to the origin after {}", b.seq(), next.failures());
                origin.add(b);
            }
            case DONE -> done(b);
            case STOP, IGNORE -> { }
            default -> throw new IllegalStateException(next + " for block " + b.seq() + " (expected: handled by its caller)");
        }
        if (next.settles()) {
            idle();
        }
    }

    @Override
    public void fetched(BlockLifecycle block, ByteBuf wire, BlockSource source) {
        if (firstFetched.compareAndSet(false, true)) {
            Collector.milestone("first block fetched");
        }
        arrived(block, wire);
    }

    @Override
    public void next(BlockLifecycle block, Next next) {
        act(block, next);
    }

    @Override
    public void missing(BlockLifecycle block) {
        pending.incrementAndGet();
        act(block, block.fetchFailed("not received"));
    }

    /**
     * A direct block met its announcement: it counts as arrived at once (the end of the direct connection no longer
     * sends it to the origin), and is opened on a fetch thread, not the direct reader's.
     */
    void directArrived(BlockLifecycle b, ByteBuf wire) {
        Next next = b.fetched();
        if (next.action() != Action.OPEN) {
            wire.release();
            act(b, next);
            return;
        }
        fetchers.execute(() -> open(b, wire));
    }

    /** The block's wire bytes (released here) from the origin: the block is worked on again. */
    @Override
    public void fetched(BlockLifecycle b, ByteBuf wire) {
        pending.incrementAndGet();
        arrived(b, wire);
    }

    /** The block's wire bytes (released here) from its current source. */
    private void arrived(BlockLifecycle b, ByteBuf wire) {
        Next next = b.fetched();
        if (next.action() != Action.OPEN) {
            wire.release(); // too late: the block moved on
            act(b, next);
            return;
        }
        open(b, wire);
    }

    /** Checks and opens a block's wire bytes (released here) and hands the plaintext to the verifier. */
    private void open(BlockLifecycle b, ByteBuf wire) {
        AnnouncedBlock a = b.announcement();
        RemoteFile f = files.get(a.file());
        OpenedBlock opened;
        try {
            opened = opener.open(wire, a, f.name());
        } catch (BlockOpener.DamagedBlockException e) {
            damaged(b, e.getMessage());
            return;
        }
        Next next = b.opened();
        if (next.action() != Action.VERIFY) {
            opened.release();
            act(b, next);
            return;
        }
        if (firstOpened.compareAndSet(false, true)) {
            Collector.milestone("first block opened");
        }
        try {
            verifier.submit(files.ref(a), opened.content(), a.digest())
                    .whenComplete((verdict, error) -> verdict(b, verdict, error));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            act(b, b.failed("interrupted"));
        } catch (RuntimeException e) {
            act(b, b.failed(TransferStatistics.describe(e)));
        }
    }

    private void damaged(BlockLifecycle b, String cause) {
        stats.damaged(b.seq());
        act(b, b.damaged(cause));
    }

    private void verdict(BlockLifecycle b, BlockVerdict v, Throwable error) {
        if (error != null) {
            act(b, b.failed(TransferStatistics.describe(error)));
            return;
        }
        switch (v.outcome()) {
            case VERIFIED -> act(b, b.verified());
            case WRITTEN -> {
                stats.writtenUnverified();
                act(b, b.verified());
            }
            case MISMATCH -> damaged(b, "digest mismatch");
            default -> act(b, b.failed(v.cause()));
        }
    }

    /** RIVA: a journaled block counts only once read back from the disk and hashed again. */
    private void reread(BlockLifecycle b) {
        AnnouncedBlock a = b.announcement();
        String cause;
        try {
            if (verifier.matchesOnDisk(files.ref(a), a.digest().value())) {
                act(b, b.verified());
                return;
            }
            cause = "resumed block no longer matches its digest on disk";
        } catch (IOException | RuntimeException e) {
            cause = "re-reading a resumed block failed: " + TransferStatistics.describe(e);
        }
        act(b, b.failed(cause));
    }

    /** The block is on disk: count it, maybe complete its file, and let its relays free it. */
    private void done(BlockLifecycle b) {
        AnnouncedBlock a = b.announcement();
        files.blockIn(a);
        if (firstVerifiedSeconds < 0) {
            firstVerifiedSeconds = (System.currentTimeMillis() - startedMillis) / 1e3;
            Collector.milestone("first block done, from " + b.source());
        }
        stats.done(a.seq(), a.length(), b.source().toString());
        relays.confirm(transferId, a);
    }

    private void idle() {
        if (pending.decrementAndGet() <= 0) {
            synchronized (pending) {
                pending.notifyAll();
            }
        }
    }

    @Override
    public void awaitIdle() throws InterruptedException {
        synchronized (pending) {
            while (pending.get() > 0) {
                pending.wait(200);
            }
        }
    }

    /** Waits for the verifier's last verdicts, then stops it and the fetch threads. */
    @Override
    public void close() throws InterruptedException {
        verifier.close();
        fetchers.shutdownNow();
    }
}

package io.fsp.server.stripe;

import io.fsp.block.stage.BlockPipeline;
import io.fsp.block.stage.SealedBlock;
import io.fsp.checksum.Digest;
import io.fsp.extension.Announcement;
import io.fsp.extension.Announcement.Placement;
import io.fsp.relaylink.RelayRefusedException;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.fsp.server.stripe.StripedTransfer.SourceFile;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one striped transfer on its own thread: reads each file once, block by block; seals each block
 * (digest of the plaintext → compress → encrypt → wire checksum); picks a target by the strategy; and
 * announces the block once its target has stored it. A block whose target fails is placed on another
 * target; when none is left it is announced as {@code origin}, for the client to fetch with FGET. A relay that
 * refuses a block with NO_SPACE is full for this transfer and gets no more of its blocks; a relay given up or full
 * is announced once ({@code STOPPED}). Copies are a promise: a block that fewer relays than the transfer's replicas
 * stored goes to other live relays until it has them all or no other relay can take it, and only then is announced.
 */
final class StripingEngine {
    private static final Logger log = LoggerFactory.getLogger(StripingEngine.class);

    /**
     * A block that must be placed (again), or given more copies: {@code stored} lists the relays that hold it already
     * (empty: none). {@code wire} is a reference the engine owns.
     */
    private record Pending(BlockPlan.Block block, ByteBuf wire, Digest digest, List<BlockTarget> stored) {
    }

    private final StripedTransfer transfer;
    private final List<BlockTarget> targets;
    private final Announcements announce;
    private final Duration waitLimit;
    private final BlockingQueue<Pending> again = new LinkedBlockingQueue<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean cancelled;
    private int cyclic;
    private final java.util.concurrent.Executor digests;
    private final DigestReuse reuse;
    /** Relays announced STOPPED, by index: each once. */
    private final java.util.Set<Integer> stopped = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final AtomicInteger shortOfCopies = new AtomicInteger();

    /**
     * @param announce receives each block's announcement, in the order blocks were placed; before each block
     *                 is read the engine waits on its {@link Announcements#awaitRoom} (back-pressure)
     * @param waitLimit longest wait for a target to take a block before it is given up
     * @param digests where blocks are hashed beside their encryption
     * @param keptDigests the server's digests of blocks of files read before
     */
    StripingEngine(StripedTransfer transfer, List<BlockTarget> targets, Announcements announce, Duration waitLimit,
                   java.util.concurrent.Executor digests, BlockDigestCache keptDigests) {
        this.digests = digests;
        this.reuse = new DigestReuse(keptDigests, transfer);
        this.transfer = transfer;
        this.targets = List.copyOf(targets);
        this.announce = announce;
        this.waitLimit = waitLimit;
    }

    void cancel() {
        cancelled = true;
    }

    /** Blocks placed on relays with fewer copies than the transfer's replicas: no other relay could take them. */
    int shortOfCopies() {
        return shortOfCopies.get();
    }

    /** Places every block; returns how many were placed on each target label (and "origin"). */
    java.util.Map<String, Integer> run() throws IOException, InterruptedException {
        java.util.Map<String, Integer> placed = new java.util.concurrent.ConcurrentHashMap<>();
        BlockPlan plan = transfer.plan();
        BlockPipeline pipeline = transfer.pipeline(0, digests);
        long nextSeq = 0; // the sequence number the pipeline gives the next block it seals
        try {
            try (StripedTransfer.Sources sources = transfer.sources()) {
                for (long seq = 0; seq < plan.count(); seq++) {
                    BlockPlan.Block b = plan.block(seq);
                    if (!announce.awaitRoom() || cancelled) {
                        throw new IOException("transfer cancelled");
                    }
                    if (transfer.held(b.seq())) {
                        placed.merge("have", 1, Integer::sum);
                        announce.announce(new Announcement.Block(b.seq(), Placement.HELD, b.file(), b.offset(), b.length(), null));
                        continue;
                    }
                    SourceFile f = transfer.files().get(b.file());
                    if (b.seq() != nextSeq) { // held blocks were left out: go on at this block's own number
                        pipeline.close();
                        pipeline = transfer.pipeline(b.seq(), digests);
                    }
                    nextSeq = b.seq() + 1;
                    int room = pipeline.roomBefore(f.name());
                    DigestReuse.Read read = reuse.read(sources, b, room);
                    SealedBlock sealed;
                    try {
                        sealed = pipeline.seal(read.data(), room, b.offset(), f.name(), b.endOfFile(), read.kept());
                    } finally {
                        read.data().release();
                    }
                    if (!transfer.sealed(b.seq(), sealed.digest())) {
                        sealed.block().content().release();
                        throw new IOException(f.name() + ": block " + b.seq() + " changed since it was first sealed");
                    }
                    reuse.sealed(read, b, sealed.digest());
                    place(new Pending(b, sealed.block().content(), sealed.digest(), List.of()), placed);
                    for (Pending p; (p = again.poll()) != null; ) {
                        place(p, placed);
                    }
                }
            }
        } finally {
            pipeline.close();
        }
        // Reading is done: wait for the last stores, placing again what a failing target gave back.
        while (inFlight.get() > 0 || !again.isEmpty()) {
            Pending p = again.poll(50, TimeUnit.MILLISECONDS);
            if (p != null) {
                place(p, placed);
            }
            if (cancelled) {
                throw new IOException("transfer cancelled");
            }
        }
        return placed;
    }

    private void place(Pending p, java.util.Map<String, Integer> placed) throws InterruptedException {
        List<BlockTarget> holders = new ArrayList<>(p.stored());
        if (holders.isEmpty()) {
            BlockTarget target = pick(p.block().seq());
            if (target == null) {
                p.wire().release();
                placed.merge("origin", 1, Integer::sum);
                announce.announce(announcement(p, Placement.ORIGIN));
                return;
            }
            holders.add(target);
        }
        if (holders.get(0) instanceof BlockTarget.Relay) {
            addReplicas(holders);
        }
        List<BlockTarget> sending = holders.subList(p.stored().size(), holders.size());
        if (sending.isEmpty()) { // more copies wanted, but no other relay can take one
            p.wire().release();
            stored(p, p.stored(), placed);
            return;
        }
        inFlight.incrementAndGet();
        ByteBuf spare = p.wire().retainedDuplicate(); // to place it elsewhere if a holder fails
        List<ByteBuf> copies = new ArrayList<>(List.of(p.wire()));
        for (int i = 1; i < sending.size(); i++) {
            copies.add(p.wire().retainedDuplicate());
        }
        List<CompletableFuture<Boolean>> sends = new ArrayList<>();
        for (int i = 0; i < sending.size(); i++) {
            BlockTarget t = sending.get(i);
            sends.add(t.send(p.block().seq(), copies.get(i)).handle((ok, error) -> {
                if (error != null) {
                    failed(t, error);
                }
                return error == null;
            }));
        }
        CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).thenRun(() -> {
            List<BlockTarget> stored = new ArrayList<>(p.stored());
            for (int i = 0; i < sending.size(); i++) {
                if (sends.get(i).join()) {
                    stored.add(sending.get(i));
                }
            }
            if (stored.isEmpty()) {
                again.add(new Pending(p.block(), spare, p.digest(), List.of()));
            } else if (stored.size() < sending.size() + p.stored().size() && stored.get(0) instanceof BlockTarget.Relay
                    && stored.size() < transfer.options().replicas()) {
                // a copy failed: look for another relay for it before the block is announced
                again.add(new Pending(p.block(), spare, p.digest(), List.copyOf(stored)));
            } else {
                spare.release();
                stored(p, stored, placed);
            }
            inFlight.decrementAndGet();
        });
    }

    /** Announces block {@code p} where it is {@code stored}, counting it short if it has fewer copies than asked. */
    private void stored(Pending p, List<BlockTarget> stored, java.util.Map<String, Integer> placed) {
        placed.merge(stored.get(0).label(), 1, Integer::sum);
        if (stored.get(0) instanceof BlockTarget.Relay && stored.size() < transfer.options().replicas()) {
            shortOfCopies.incrementAndGet();
        }
        announce.announce(announcement(p, where(stored)));
    }

    /**
     * {@code t} did not store a block: a relay that refused it with NO_SPACE is full for this transfer, any
     * other failure gives the target up. Either way it gets no more blocks, and the block is placed elsewhere.
     */
    private void failed(BlockTarget t, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof RelayRefusedException r && r.code() == RelayErrorCode.NO_SPACE) {
            if (!t.isFull()) {
                log.info("{} is full for this transfer, placing its blocks elsewhere: {}", t.label(), cause.getMessage());
            }
            t.markFull();
            announceStopped(t, cause);
            return;
        }
        if (!t.isDead()) {
            log.warn("{} failed, placing its blocks elsewhere: {}", t.label(), error.toString());
        }
        giveUp(t, cause);
    }

    /** Gives {@code t} up for {@code cause}: it gets no more blocks, and the client is told (STOPPED). */
    private void giveUp(BlockTarget t, Throwable cause) {
        t.markDead();
        announceStopped(t, cause);
    }

    /** The first time a relay takes no more blocks, the client hears why. */
    private void announceStopped(BlockTarget t, Throwable cause) {
        if (t instanceof BlockTarget.Relay r && stopped.add(r.index())) {
            announce.announce(RelayOutcomes.stopped(r.index(), cause));
        }
    }

    /**
     * Adds live relays to {@code holders} until the transfer's replica count is reached or no other relay is
     * left: of those with room, the least loaded (waiting for room like the first copy does).
     */
    private void addReplicas(List<BlockTarget> holders) throws InterruptedException {
        while (holders.size() < transfer.options().replicas()) {
            List<BlockTarget> others = new ArrayList<>();
            for (BlockTarget t : targets) {
                if (t instanceof BlockTarget.Relay && t.takesBlocks() && !holders.contains(t)) {
                    others.add(t);
                }
            }
            if (others.isEmpty()) {
                return;
            }
            BlockTarget extra = firstWritable(others);
            if (extra == null) {
                continue; // the ones that could not take it were given up; look again
            }
            holders.add(extra);
        }
    }

    /**
     * The data connection, or the relays that stored the block, the one picked by the strategy first (the client
     * fetches from it first); only relays hold replicas.
     */
    private static Placement where(List<BlockTarget> stored) {
        if (stored.get(0) instanceof BlockTarget.Direct) {
            return Placement.DIRECT;
        }
        List<Integer> relays = new ArrayList<>();
        for (BlockTarget t : stored) {
            relays.add(((BlockTarget.Relay) t).index());
        }
        return new Placement.Relays(relays);
    }

    private static Announcement.Block announcement(Pending p, Placement where) {
        BlockPlan.Block b = p.block();
        return new Announcement.Block(b.seq(), where, b.file(), b.offset(), b.length(), p.digest());
    }

    /** The target for block {@code seq} by the strategy, waiting until it can take it; null if none is left. */
    private BlockTarget pick(long seq) throws InterruptedException {
        while (true) {
            List<BlockTarget> live = new ArrayList<>();
            for (BlockTarget t : targets) {
                if (t.takesBlocks()) {
                    live.add(t);
                }
            }
            if (live.isEmpty()) {
                return null;
            }
            BlockTarget chosen = switch (transfer.options().strategy()) {
                case FCFS -> firstWritable(live);
                case CYCLIC -> awaitWritable(live.get(Math.floorMod(cyclic++, live.size())));
                case PARTITIONED -> awaitWritable(live.get((int) (seq * live.size() / Math.max(1, transfer.plan().count()))));
            };
            if (chosen != null) {
                return chosen;
            }
        }
    }

    private BlockTarget awaitWritable(BlockTarget t) throws InterruptedException {
        try {
            t.whenWritable().get(waitLimit.toMillis(), TimeUnit.MILLISECONDS);
            return t;
        } catch (ExecutionException | TimeoutException e) {
            log.warn("{} cannot take blocks, giving it up: {}", t.label(), e.toString());
            giveUp(t, e instanceof TimeoutException ? stalled() : e);
            return null;
        }
    }

    private TimeoutException stalled() {
        return new TimeoutException("took no block within " + waitLimit.toMillis() + " ms");
    }

    /** First come, first served: of the targets that have room, the least loaded; waits for one. */
    private BlockTarget firstWritable(List<BlockTarget> live) throws InterruptedException {
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        for (BlockTarget t : live) {
            waits.add(t.whenWritable());
        }
        try {
            CompletableFuture.anyOf(waits.toArray(CompletableFuture[]::new)).get(waitLimit.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            // one failed: sorted out below
        } catch (TimeoutException e) {
            log.warn("no target took a block within {} ms", waitLimit.toMillis());
            live.forEach(t -> giveUp(t, stalled()));
            return null;
        }
        List<BlockTarget> ready = new ArrayList<>();
        for (int i = 0; i < live.size(); i++) {
            CompletableFuture<Void> w = waits.get(i);
            if (w.isDone()) {
                if (w.isCompletedExceptionally()) {
                    giveUp(live.get(i), w.handle((ok, error) -> error).join());
                } else {
                    ready.add(live.get(i));
                }
            }
        }
        return ready.stream().min(Comparator.comparingLong(BlockTarget::load)).orElse(null);
    }
}

package io.fsp.server.stripe;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * The files and directories that the server's transfer plans hold at once ({@code max-planned}), whoever asked for
 * them: a plan keeps a couple of hundred bytes of each for as long as its transfer runs, and a session keeps its last
 * transfers after that for re-fetches (FGET). Without a bound, a few sessions that each ask for a tree of a million
 * files would exhaust the heap and fail every other client. (A block costs a plan tens of bytes, and
 * {@code max-blocks-per-transfer} bounds them.)
 *
 * <p>A plan takes its share as it walks the tree ({@link Charge#add}). When the budget is spent, the finished
 * transfers kept only for re-fetches give their share back, oldest first (their sessions forget them; a re-fetch of
 * one is then answered as for an unknown transfer, and the client fetches from the origin by running again), but only
 * when their shares together make the room a step needs: otherwise, and when none is left, the plan fails with
 * {@link PlanBudgetExceededException} and the FRET is answered "busy, try again", and the kept ones stay. (A plan
 * refused in a later step may have made room in earlier ones: a tree's size is known only once it is walked.)
 *
 * <p>One user's running plans may hold at most half of the budget ({@link #userShare}): an account that asks for
 * huge trees, or many of them at once, leaves the other half to everyone else.
 */
public final class PlanBudget {
    /**
     * Heap a plan may take per file or directory when {@code max-planned} is left to its default: several times what
     * a running transfer keeps (measured with a tree of 200,000 files: 170-280 bytes a file), for what planning makes
     * and drops on the way.
     */
    public static final long BYTES_PER_ENTRY = 1024;
    /** Entries {@link Charge#addOne} takes from the budget at a time. */
    static final int STEP = 256;

    private final long limit;
    /** Guarded by this. */
    private long held;
    /** The entries of each user's running plans (not those kept for re-fetches); guarded by this. */
    private final Map<String, Long> runningByUser = new HashMap<>();
    /** Finished transfers kept only for re-fetches, oldest first: their share goes first when room is needed. */
    private final LinkedHashSet<Charge> kept = new LinkedHashSet<>();
    /** The entries of {@link #kept}; guarded by this. */
    private long keptHeld;

    /** @param limit the most entries held at once, at least 1 */
    public PlanBudget(long limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("max-planned: " + limit + " (expected: >= 1)");
        }
        this.limit = limit;
    }

    /** The default: one entry per {@link #BYTES_PER_ENTRY} of the largest heap this JVM may have. */
    public static long defaultLimit() {
        return Math.max(1, Runtime.getRuntime().maxMemory() / BYTES_PER_ENTRY);
    }

    public long limit() {
        return limit;
    }

    /** The most entries one user's running plans may hold: half the budget. */
    public long userShare() {
        return Math.max(1, limit / 2);
    }

    /** Entries held now, by running plans and kept ones. */
    public synchronized long held() {
        return held;
    }

    /** A new plan's share for {@code user}, empty until it {@linkplain Charge#add adds} what it holds. */
    public Charge charge(String user) {
        return new Charge(user);
    }

    /**
     * One transfer's share. Given back once the transfer has ended and its session no longer keeps it
     * ({@link #ended}, {@link #forgotten}, in either order), when the plan fails ({@link #close}), or when the
     * budget needs the room of a transfer kept only for re-fetches.
     */
    public final class Charge implements AutoCloseable {
        private final String user;
        private long entries;
        /** Whether {@link #entries} count in {@link #runningByUser}: until the transfer ends or the plan fails. */
        private boolean running = true;
        /** Taken by {@link #addOne} in advance and not yet counted. */
        private int unused;
        private boolean ended;
        private boolean forgotten;
        private boolean released;
        /** How the session that keeps the ended transfer forgets it (null until then). */
        private Runnable forget;

        private Charge(String user) {
            this.user = user;
        }

        /**
         * Takes {@code n} more entries, making room from the transfers kept for re-fetches if needed.
         *
         * @throws PlanBudgetExceededException if running transfers hold so much that the room is not there
         */
        public void add(long n) throws PlanBudgetExceededException {
            List<Runnable> forgets = new ArrayList<>();
            try {
                synchronized (PlanBudget.this) {
                    if (released) {
                        throw new IllegalStateException("a released plan charge grows");
                    }
                    if (held - keptHeld + n > limit) { // giving up every kept one would not do
                        throw new PlanBudgetExceededException(limit, held, n);
                    }
                    long mine = runningByUser.getOrDefault(user, 0L);
                    if (mine + n > userShare()) {
                        throw PlanBudgetExceededException.ofUser(user, userShare(), mine, n);
                    }
                    for (Iterator<Charge> oldest = kept.iterator(); held + n > limit; ) {
                        Charge c = oldest.next();
                        oldest.remove();
                        keptHeld -= c.entries;
                        c.release();
                        forgets.add(c.forget);
                    }
                    held += n;
                    entries += n;
                    runningByUser.merge(user, n, Long::sum);
                }
            } finally {
                forgets.forEach(Runnable::run); // outside the budget's lock: a session's lock comes after it
            }
        }

        /**
         * Takes one more entry: from the budget {@value #STEP} at a time, for a planner that finds its entries one
         * by one (the charge is its own while it plans).
         */
        public void addOne() throws PlanBudgetExceededException {
            if (unused == 0) {
                add(STEP);
                unused = STEP;
            }
            unused--;
        }

        /** Entries this transfer holds. */
        public long entries() {
            synchronized (PlanBudget.this) {
                return entries;
            }
        }

        /**
         * The transfer ended; its session still keeps it for re-fetches until {@link #forgotten}, and {@code forget}
         * makes it forget it early when the budget needs the room.
         */
        public void ended(Runnable forget) {
            synchronized (PlanBudget.this) {
                if (released || ended) {
                    return;
                }
                ended = true;
                stopRunning();
                if (forgotten) {
                    release();
                } else {
                    this.forget = forget;
                    kept.add(this);
                    keptHeld += entries;
                }
            }
        }

        /** The session no longer keeps the transfer (it kept newer ones, or it closed). */
        public void forgotten() {
            synchronized (PlanBudget.this) {
                forgotten = true;
                if (ended) {
                    unkeep();
                    release();
                }
            }
        }

        /** Gives the share back now: a plan that failed, or a transfer that never started. Idempotent. */
        @Override
        public void close() {
            synchronized (PlanBudget.this) {
                unkeep();
                release();
            }
        }

        private void unkeep() { // holding the budget's lock
            if (kept.remove(this)) {
                keptHeld -= entries;
            }
        }

        private void stopRunning() { // holding the budget's lock
            if (running) {
                running = false;
                runningByUser.computeIfPresent(user, (u, n) -> n == entries ? null : n - entries);
            }
        }

        private void release() { // holding the budget's lock
            stopRunning();
            if (!released) {
                released = true;
                held -= entries;
            }
        }
    }
}

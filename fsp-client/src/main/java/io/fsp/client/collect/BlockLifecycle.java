package io.fsp.client.collect;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One announced block on its way to the disk, and the recovery rule: pure logic, no I/O, no threads. The
 * collector reports what happened to the block (fetched, opened, damaged, verified, failed, ...) and does what
 * the returned {@link Next} says.
 *
 * <pre>
 * ANNOUNCED ─► FETCHING ─► OPENING ─► VERIFYING ─► DONE
 *                 ▲  │         │           │
 *                 │  └─────────┴───────────┴─► (recovery rule) ─► FETCHING again, or ORIGIN, or STOPPED
 *              ORIGIN  (an origin round fetches it: FETCHING from "origin")
 * </pre>
 *
 * The recovery rule, for a block that failed at its current source:
 * <ol>
 *   <li>damaged (bad checksum, failed authentication, wrong block, digest mismatch) as served by a relay: fetch
 *       it from that relay once more, once per block — the relay still holds it, and the damage may have happened
 *       on the way;</li>
 *   <li>failed or damaged again at a relay: the first replica holder that was announced and not asked yet;</li>
 *   <li>otherwise (no holder left, or the block came from the direct connection, the journal or the origin):
 *       the origin, in the next FGET round;</li>
 *   <li>a write that failed for want of space stops the block (and every other: see {@link TransferConditions}).</li>
 * </ol>
 * A relay that let a request wait out the relay timeout is not asked again in this transfer: a block queued for
 * it moves on as soon as its fetch slot comes up. Relay recovery off: every failure goes to the origin.
 * <p>
 * An event that arrives in a state where it no longer applies (a direct block after its connection was
 * declared ended, a second origin fetch of a block already done) changes nothing and returns {@link Action#IGNORE}:
 * each block is settled exactly once per attempt. Methods are synchronized: events come from fetch threads,
 * the direct reader and the verifier's threads.
 */
final class BlockLifecycle {
    enum State { ANNOUNCED, FETCHING, OPENING, VERIFYING, DONE, ORIGIN, STOPPED }

    enum Action {
        /** Fetch the block from the relay of {@link #announcement()} (wait for a fetch slot, then {@link #slotAcquired}). */
        FETCH_FROM_RELAY,
        /** The block comes on the direct data connection: wait for it ({@link #fetched}, or {@link #directEnded}). */
        AWAIT_DIRECT,
        /** The fetch slot is held and the relay may be asked: send the request. */
        ASK_RELAY,
        /** RIVA: read the journaled block back from the disk and hash it ({@link #verified} or {@link #damaged}). */
        REREAD_FROM_DISK,
        /** Check and open the wire bytes just fetched ({@link #opened} or {@link #damaged}). */
        OPEN,
        /** Hand the opened block to the verifier ({@link #verified}, {@link #damaged} or {@link #failed}). */
        VERIFY,
        /** Settled for now: the next origin round fetches it ({@link #originFetchStarted}). */
        QUEUE_FOR_ORIGIN,
        /** Settled: the block is on disk; count it for {@link #source()}. */
        DONE,
        /** Settled: nothing can be written any more (disk full). */
        STOP,
        /** The event came too late for this block: drop what it brought. */
        IGNORE
    }

    /**
     * What to do next, and the failures to count, each as {@code "source: cause"} (the summary's retries).
     */
    record Next(Action action, List<String> failures) {
        Next {
            failures = List.copyOf(failures);
        }

        /** Whether the block stops being worked on (the collector counts it as idle). */
        boolean settles() {
            return action == Action.QUEUE_FOR_ORIGIN || action == Action.DONE || action == Action.STOP;
        }
    }

    private static final BlockSource DIRECT = BlockSource.DIRECT;
    private static final BlockSource ORIGIN = BlockSource.ORIGIN;
    private static final BlockSource JOURNAL = BlockSource.JOURNAL;
    /** Where a block announced {@code origin} (no relay could take it) is counted as failed. */
    private static final BlockSource SERVER = BlockSource.SERVER;

    private final AnnouncedBlock announced;
    private final TransferConditions conditions;
    private AnnouncedBlock current;
    private State state = State.ANNOUNCED;
    private BlockSource source;
    private boolean refetchedFromRelay;
    private final Set<Integer> askedRelays = new HashSet<>();
    private final List<String> failures = new ArrayList<>();

    BlockLifecycle(AnnouncedBlock announced, TransferConditions conditions) {
        this.announced = announced;
        this.current = announced;
        this.conditions = conditions;
    }

    long seq() {
        return announced.seq();
    }

    /** The block as announced, with the relay to ask now as its source. */
    synchronized AnnouncedBlock announcement() {
        return current;
    }

    synchronized State state() {
        return state;
    }

    /** Where the current attempt's bytes come (or came) from: a relay, direct, origin or journal. */
    synchronized BlockSource source() {
        return source;
    }

    /** The block was announced and is not in the journal: fetch it from where the server placed it. */
    synchronized Next announced() {
        if (state != State.ANNOUNCED) {
            return ignore();
        }
        if (announced.source() == ORIGIN) {
            source = SERVER;
            return retry("no relay could take the block");
        }
        if (announced.source() == DIRECT) {
            source = DIRECT;
            state = State.FETCHING;
            return next(Action.AWAIT_DIRECT);
        }
        return askRelay(announced.relay());
    }

    /**
     * The journal holds the block verified by an earlier run. It is done at once, unless {@code reread} (RIVA),
     * where it counts only once read back from the disk and hashed again.
     */
    synchronized Next resumed(boolean reread) {
        if (state != State.ANNOUNCED) {
            return ignore();
        }
        source = JOURNAL;
        if (reread) {
            state = State.VERIFYING;
            return next(Action.REREAD_FROM_DISK);
        }
        state = State.DONE;
        return next(Action.DONE);
    }

    /** A fetch slot on the relay is held: ask it, unless it let a request time out meanwhile. */
    synchronized Next slotAcquired() {
        if (state != State.FETCHING || current.relay() < 0) {
            return ignore();
        }
        if (conditions.isUnresponsive(current.relay())) {
            return retry("relay gave no answer within " + conditions.relayTimeoutMillis() + " ms before; not asked again");
        }
        return next(Action.ASK_RELAY);
    }

    /** The block's wire bytes arrived from the current source. */
    synchronized Next fetched() {
        if (state != State.FETCHING) {
            return ignore();
        }
        state = State.OPENING;
        return next(Action.OPEN);
    }

    /** The current source could not deliver the block (connection failed, relay has no such block, ...). */
    synchronized Next fetchFailed(String cause) {
        if (state != State.FETCHING) {
            return ignore();
        }
        return retry(cause);
    }

    /** The current relay gave no answer within the relay timeout: neither this block nor any other asks it again. */
    synchronized Next relayTimedOut(String cause) {
        if (state != State.FETCHING) {
            return ignore();
        }
        if (current.relay() >= 0 && isRelay(source)) {
            conditions.relayTimedOut(current.relay());
        }
        return retry(cause);
    }

    /** The direct data connection ended; a direct block that had not arrived by then comes from the origin. */
    synchronized Next directEnded() {
        if (state != State.FETCHING || source != DIRECT) {
            return ignore();
        }
        return retry("direct connection ended before the block arrived");
    }

    /** The wire bytes passed their checksum, authentication and the announced place: verify the plaintext. */
    synchronized Next opened() {
        if (state != State.OPENING) {
            return ignore();
        }
        state = State.VERIFYING;
        return next(Action.VERIFY);
    }

    /** The bytes are not the block's: bad checksum, failed authentication, wrong block, digest mismatch. */
    synchronized Next damaged(String cause) {
        if (state != State.OPENING && state != State.VERIFYING) {
            return ignore();
        }
        if (conditions.relayRecovery() && isRelay(source) && conditions.isAnnounced(current.relay()) && !refetchedFromRelay) {
            refetchedFromRelay = true;
            failures.add(source + ": " + cause);
            return askRelay(current.relay());
        }
        return retry(cause);
    }

    /** Handing over, writing, flushing or re-reading the block failed (not its bytes' fault). */
    synchronized Next failed(String cause) {
        if (state != State.OPENING && state != State.VERIFYING) {
            return ignore();
        }
        return retry(cause);
    }

    /** The block is on disk (and, unless verification is off, hashed and matched). */
    synchronized Next verified() {
        if (state != State.VERIFYING) {
            return ignore();
        }
        state = State.DONE;
        return next(Action.DONE);
    }

    /** An origin round fetches the block: true if it was waiting for one (else it is done or stopped already). */
    synchronized boolean originFetchStarted() {
        if (state != State.ORIGIN) {
            return false;
        }
        state = State.FETCHING;
        source = ORIGIN;
        return true;
    }

    private Next askRelay(int relay) {
        if (conditions.diskFull() != null) {
            state = State.STOPPED;
            return next(Action.STOP);
        }
        askedRelays.add(relay);
        current = announced.at(relay);
        source = current.source();
        state = State.FETCHING;
        if (!conditions.isAnnounced(relay)) {
            return retry("relay not announced");
        }
        return next(Action.FETCH_FROM_RELAY);
    }

    /** The recovery rule after a failure at the current source (see the class comment). */
    private Next retry(String cause) {
        failures.add(source + ": " + cause);
        if (TransferConditions.meansNoSpace(cause)) {
            conditions.diskFull(cause);
            state = State.STOPPED;
            return next(Action.STOP);
        }
        if (conditions.relayRecovery() && isRelay(source)) {
            for (int r : announced.holders()) {
                if (conditions.isAnnounced(r) && !askedRelays.contains(r)) {
                    return askRelay(r);
                }
            }
        }
        state = State.ORIGIN;
        return next(Action.QUEUE_FOR_ORIGIN);
    }

    private static boolean isRelay(BlockSource source) {
        return source instanceof BlockSource.Relay;
    }

    private Next next(Action action) {
        Next n = new Next(action, failures);
        failures.clear();
        return n;
    }

    private Next ignore() {
        return new Next(Action.IGNORE, List.of());
    }
}

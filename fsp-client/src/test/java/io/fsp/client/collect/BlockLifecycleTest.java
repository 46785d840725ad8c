package io.fsp.client.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.collect.BlockLifecycle.Action;
import io.fsp.client.collect.BlockLifecycle.Next;
import io.fsp.client.collect.BlockLifecycle.State;
import io.fsp.extension.Announcement;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Drives single blocks through scripted events: the recovery rule without a socket. */
class BlockLifecycleTest {
    private static final String DIGEST = "sha256:" + "ab".repeat(32);
    private static final String NO_SPACE = "IO: No space left on device";

    private final TransferConditions conditions = conditions(true, 0, 1, 2);

    private static TransferConditions conditions(boolean relayRecovery, int... relays) {
        TransferConditions c = new TransferConditions(relayRecovery, 2000);
        for (int r : relays) {
            c.relayAnnounced(r);
        }
        return c;
    }

    private static BlockLifecycle block(String source, TransferConditions conditions) {
        return new BlockLifecycle(AnnouncedBlock.of((Announcement.Block) io.fsp.extension.ExtensionCodec.parse("BLK 7 " + source + " 0 0 4096 " + DIGEST)), conditions);
    }

    /** Fetched from its relay, opened and verified: done, credited to that relay, nothing counted as failed. */
    @Test
    void aGoodBlockGoesStraightThrough() {
        BlockLifecycle b = block("relay:1,2", conditions);
        assertEquals(State.ANNOUNCED, b.state());
        expect(b.announced(), Action.FETCH_FROM_RELAY);
        assertEquals(1, b.announcement().relay());
        expect(b.slotAcquired(), Action.ASK_RELAY);
        expect(b.fetched(), Action.OPEN);
        assertEquals(State.OPENING, b.state());
        expect(b.opened(), Action.VERIFY);
        assertEquals(State.VERIFYING, b.state());
        expect(b.verified(), Action.DONE);
        assertEquals(State.DONE, b.state());
        assertEquals("relay:1", b.source().toString());
    }

    /** Damaged from a relay: the same relay once, then each replica, then the origin. */
    @Test
    void damagedBlockIsAskedOfTheSameRelayOnceThenAReplicaThenTheOrigin() {
        BlockLifecycle b = block("relay:1,2", conditions);
        fetchAndOpen(b);
        Next again = b.damaged("digest mismatch");
        expect(again, Action.FETCH_FROM_RELAY, "relay:1: digest mismatch");
        assertEquals(1, b.announcement().relay());

        fetchAndOpen(b);
        Next replica = b.damaged("digest mismatch");
        expect(replica, Action.FETCH_FROM_RELAY, "relay:1: digest mismatch");
        assertEquals(2, b.announcement().relay());
        assertEquals("relay:2", b.source().toString());

        fetchAndOpen(b);
        expect(b.damaged("Authentication: tag mismatch"), Action.QUEUE_FOR_ORIGIN, "relay:2: Authentication: tag mismatch");
        assertEquals(State.ORIGIN, b.state());

        assertTrue(b.originFetchStarted());
        assertEquals("origin", b.source().toString());
        expect(b.fetched(), Action.OPEN);
        expect(b.opened(), Action.VERIFY);
        expect(b.verified(), Action.DONE);
        assertEquals("origin", b.source().toString());
    }

    /** A fetch that fails (not damage) goes to a replica at once: the same relay is asked again only for damage. */
    @Test
    void failedFetchGoesToTheNextReplicaNotTheSameRelay() {
        BlockLifecycle b = block("relay:0,1,2", conditions);
        b.announced();
        b.slotAcquired();
        expect(b.fetchFailed("RelayProtocol: no such block"), Action.FETCH_FROM_RELAY, "relay:0: RelayProtocol: no such block");
        assertEquals(1, b.announcement().relay());
        b.slotAcquired();
        expect(b.fetchFailed("ClosedChannel"), Action.FETCH_FROM_RELAY, "relay:1: ClosedChannel");
        assertEquals(2, b.announcement().relay());
        b.slotAcquired();
        expect(b.fetchFailed("ClosedChannel"), Action.QUEUE_FOR_ORIGIN, "relay:2: ClosedChannel");
    }

    /** After a relay timeout the relay is not asked again, by this block or any other queued for it. */
    @Test
    void relayThatTimedOutIsNotAskedAgain() {
        BlockLifecycle first = block("relay:1", conditions);
        BlockLifecycle queued = block("relay:1,0", conditions);
        expect(first.announced(), Action.FETCH_FROM_RELAY);
        expect(queued.announced(), Action.FETCH_FROM_RELAY);
        expect(first.slotAcquired(), Action.ASK_RELAY);
        expect(first.relayTimedOut("no answer within 2000 ms"), Action.QUEUE_FOR_ORIGIN, "relay:1: no answer within 2000 ms");
        assertTrue(conditions.isUnresponsive(1));

        // its fetch slot comes up only now: the relay is skipped, the replica asked
        Next n = queued.slotAcquired();
        assertEquals(Action.FETCH_FROM_RELAY, n.action());
        assertEquals(1, n.failures().size());
        assertTrue(n.failures().get(0).startsWith("relay:1: relay gave no answer"), n.failures().toString());
        assertEquals(0, queued.announcement().relay());
        expect(queued.slotAcquired(), Action.ASK_RELAY);

        // a block placed on that relay alone goes to the origin without asking it
        BlockLifecycle only = block("relay:1", conditions);
        only.announced();
        expect(only.slotAcquired(), Action.QUEUE_FOR_ORIGIN,
                "relay:1: relay gave no answer within 2000 ms before; not asked again");
    }

    /** A relay timeout marks the relay only when the block was fetched from it. */
    @Test
    void timeoutOfTheOriginMarksNoRelay() {
        BlockLifecycle b = block("relay:1", conditions);
        b.announced();
        b.slotAcquired();
        b.fetchFailed("ClosedChannel");
        assertTrue(b.originFetchStarted());
        expect(b.relayTimedOut("no answer"), Action.QUEUE_FOR_ORIGIN, "origin: no answer");
        assertFalse(conditions.isUnresponsive(1));
    }

    /** Relay recovery off: a damaged or failed block goes straight to the origin. */
    @Test
    void withoutRelayRecoveryEveryFailureGoesToTheOrigin() {
        TransferConditions off = conditions(false, 0, 1);
        BlockLifecycle b = block("relay:0,1", off);
        fetchAndOpen(b);
        expect(b.damaged("digest mismatch"), Action.QUEUE_FOR_ORIGIN, "relay:0: digest mismatch");
        BlockLifecycle c = block("relay:0,1", off);
        c.announced();
        c.slotAcquired();
        expect(c.fetchFailed("ClosedChannel"), Action.QUEUE_FOR_ORIGIN, "relay:0: ClosedChannel");
    }

    /** A block placed on a relay that was never announced goes on to an announced holder, else to the origin. */
    @Test
    void unannouncedRelayIsSkipped() {
        expect(block("relay:5,1", conditions).announced(), Action.FETCH_FROM_RELAY, "relay:5: relay not announced");
        expect(block("relay:5", conditions).announced(), Action.QUEUE_FOR_ORIGIN, "relay:5: relay not announced");
    }

    /** A block no relay could take is counted once against the server and waits for the origin. */
    @Test
    void originAnnouncementWaitsForTheOrigin() {
        BlockLifecycle b = block("origin", conditions);
        expect(b.announced(), Action.QUEUE_FOR_ORIGIN, "server: no relay could take the block");
        assertTrue(b.originFetchStarted());
        assertFalse(b.originFetchStarted()); // one fetch at a time
        expect(b.fetchFailed("not received"), Action.QUEUE_FOR_ORIGIN, "origin: not received");
        assertTrue(b.originFetchStarted());
        expect(b.fetched(), Action.OPEN);
        expect(b.damaged("digest mismatch"), Action.QUEUE_FOR_ORIGIN, "origin: digest mismatch");
    }

    /** Damage of a direct block is not fetched again on the direct connection: the origin has it. */
    @Test
    void damagedDirectBlockGoesToTheOrigin() {
        BlockLifecycle b = block("direct", conditions);
        expect(b.announced(), Action.AWAIT_DIRECT);
        expect(b.fetched(), Action.OPEN);
        expect(b.damaged("Checksum: mismatch"), Action.QUEUE_FOR_ORIGIN, "direct: Checksum: mismatch");
    }

    /**
     * The race between the direct connection's end and a block arriving on it: whichever the collector reports
     * first wins, and the other changes nothing (no block is settled twice, none is lost).
     */
    @Test
    void directBlockAndTheEndOfTheDirectConnectionSettleTheBlockOnce() {
        BlockLifecycle arrivedFirst = block("direct", conditions);
        arrivedFirst.announced();
        expect(arrivedFirst.fetched(), Action.OPEN);
        expect(arrivedFirst.directEnded(), Action.IGNORE);
        expect(arrivedFirst.opened(), Action.VERIFY);
        expect(arrivedFirst.verified(), Action.DONE);
        assertEquals("direct", arrivedFirst.source().toString());

        BlockLifecycle endedFirst = block("direct", conditions);
        endedFirst.announced();
        expect(endedFirst.directEnded(), Action.QUEUE_FOR_ORIGIN, "direct: direct connection ended before the block arrived");
        expect(endedFirst.fetched(), Action.IGNORE); // late: the caller releases its bytes
        assertTrue(endedFirst.originFetchStarted());
        expect(endedFirst.directEnded(), Action.IGNORE); // fetching from the origin now, not from the direct connection
    }

    /** Events that arrive after the block is settled change nothing. */
    @Test
    void lateEventsAreIgnored() {
        BlockLifecycle b = block("relay:1", conditions);
        fetchAndOpen(b);
        expect(b.verified(), Action.DONE);
        expect(b.verified(), Action.IGNORE);
        expect(b.damaged("digest mismatch"), Action.IGNORE);
        expect(b.failed("IO"), Action.IGNORE);
        expect(b.fetched(), Action.IGNORE);
        expect(b.announced(), Action.IGNORE);
        assertFalse(b.originFetchStarted());
        assertEquals(State.DONE, b.state());
    }

    /** A write that fails for want of space stops the block and every relay fetch after it. */
    @Test
    void diskFullStopsTheBlockAndEveryOther() {
        BlockLifecycle b = block("relay:1,2", conditions);
        fetchAndOpen(b);
        expect(b.failed(NO_SPACE), Action.STOP, "relay:1: " + NO_SPACE);
        assertEquals(State.STOPPED, b.state());
        assertEquals(NO_SPACE, conditions.diskFull());

        expect(block("relay:2", conditions).announced(), Action.STOP);
        // fetched before the disk filled up, damaged after: not fetched again either
        TransferConditions fresh = conditions(true, 2);
        BlockLifecycle other = block("relay:2", fresh);
        fetchAndOpen(other);
        fresh.diskFull(NO_SPACE);
        expect(other.damaged("digest mismatch"), Action.STOP, "relay:2: digest mismatch");
    }

    /** Resumed blocks: done at once, or (RIVA) once re-read; one that no longer matches comes from the origin. */
    @Test
    void resumedBlockIsDoneOrReReadAndOtherwiseFetchedFromTheOrigin() {
        BlockLifecycle held = block("relay:1", conditions);
        expect(held.resumed(false), Action.DONE);
        assertEquals("journal", held.source().toString());

        BlockLifecycle reread = block("relay:1,2", conditions);
        expect(reread.resumed(true), Action.REREAD_FROM_DISK);
        expect(reread.damaged("resumed block no longer matches its digest on disk"), Action.QUEUE_FOR_ORIGIN,
                "journal: resumed block no longer matches its digest on disk");

        BlockLifecycle good = block("relay:1", conditions);
        good.resumed(true);
        expect(good.verified(), Action.DONE);
        assertEquals("journal", good.source().toString());
    }

    private static void fetchAndOpen(BlockLifecycle b) {
        if (b.state() == State.ANNOUNCED) {
            expect(b.announced(), Action.FETCH_FROM_RELAY);
        }
        expect(b.slotAcquired(), Action.ASK_RELAY);
        expect(b.fetched(), Action.OPEN);
        expect(b.opened(), Action.VERIFY);
    }

    private static void expect(Next next, Action action, String... failures) {
        assertEquals(action, next.action(), next.toString());
        assertEquals(List.of(failures), next.failures());
    }
}

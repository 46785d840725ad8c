package io.fsp.server.stripe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class PushWindowTunerTest {
    private static final int BLOCK = 256 * 1024;
    private static final long MAX = 16L << 20;
    private static final long MS = 1_000_000L;

    /** Feeds acknowledgements of one block every {@code gapMs} ms until a window comes out. */
    private static long windowAt(PushWindowTuner t, long gapMs) {
        return windowAt(t, gapMs, 1);
    }

    /** As above, on a connection with a round trip of {@code rttMs}. */
    private static long windowAt(PushWindowTuner t, long gapMs, long rttMs) {
        return windowAt(t, BLOCK, gapMs, rttMs);
    }

    /** As above, with blocks of {@code blockBytes}. */
    private static long windowAt(PushWindowTuner t, int blockBytes, long gapMs, long rttMs) {
        long now = 0;
        t.started(now);
        for (int i = 0; i < 1000; i++) {
            now += gapMs * MS;
            OptionalLong w = t.acknowledged(blockBytes, now, rttMs * MS);
            if (w.isPresent()) {
                return w.getAsLong();
            }
        }
        throw new AssertionError("no window after 1000 acknowledgements");
    }

    @Test
    void windowHoldsTheHorizonOfTheMeasuredRateAndTwoBlocks() {
        // 256 KiB per 2 ms = 131 MB/s, each acknowledged 1 ms after its push: 20 ms of it is ten blocks.
        assertEquals(12L * BLOCK, windowAt(new PushWindowTuner(BLOCK, MAX), 2, 1), 2);
    }

    @Test
    void slowRelaysKeepTwoBlocksSoTheLinkNeverWaitsForAnAcknowledgement() {
        // 20 ms of one block per 200 ms is a tenth of a block
        assertEquals(2L * BLOCK + BLOCK / 10, windowAt(new PushWindowTuner(BLOCK, MAX), 200), 2);
    }

    @Test
    void aRelaySharingALongFatLinkKeepsTwoBlocksBeyondTwiceTheBandwidthDelayProduct() {
        // Three relays sharing 200 Mbit/s at 100 ms: 1 MiB blocks, one acknowledged every 250 ms (33.5 Mbit/s).
        // A block stays unacknowledged for the round trip plus the 250 ms it takes on the wire: a window of
        // max(two blocks, 2 x 100 ms of the rate) = 2 MiB left the link waiting between acknowledgements.
        int block = 1 << 20;
        long window = windowAt(new PushWindowTuner(block, MAX), block, 250, 100);
        assertEquals(2L * block + block * 200 / 250, window, 2);
    }

    @Test
    void fastRelaysAreCappedAtTheMaximum() {
        assertEquals(MAX, windowAt(new PushWindowTuner(BLOCK, MAX), 1, 100));
    }

    @Test
    void twiceTheRateGivesTwiceTheRatesShareOfTheWindow() {
        long slow = windowAt(new PushWindowTuner(BLOCK, MAX), 2, 1) - 2L * BLOCK;
        long fast = windowAt(new PushWindowTuner(BLOCK, MAX), 1, 1) - 2L * BLOCK;
        assertEquals(2.0, (double) fast / slow, 0.01);
    }

    @Test
    void aLongRoundTripKeepsTwiceTheBandwidthDelayProductInFlight() {
        // 26.2 MB/s over a 300 ms round trip: the horizon's two blocks would leave the link idle most of the
        // time; the window holds 2 x 300 ms of the rate instead, and two blocks.
        assertEquals(62L * BLOCK, windowAt(new PushWindowTuner(BLOCK, MAX), 10, 300), 2);
    }

    @Test
    void noWindowFromASingleAcknowledgement() {
        PushWindowTuner t = new PushWindowTuner(BLOCK, MAX);
        t.started(0);
        assertTrue(t.acknowledged(BLOCK, 1_000 * MS, 0).isEmpty(), "one acknowledgement is no rate");
    }

    @Test
    void initialWindowIsAFewBlocksAndAtLeastOneMebibyte() {
        assertEquals(1L << 20, PushWindowTuner.initial(64 * 1024, MAX));
        assertEquals(4L << 20, PushWindowTuner.initial(1 << 20, MAX));
        assertEquals(2L << 20, PushWindowTuner.initial(1 << 20, 2L << 20));
    }
}

package io.fsp.client.collect;

import java.util.Locale;

/**
 * Where a block's bytes come from: relay <i>n</i> (by its index in the transfer's {@code RELAY} lines), the direct
 * data connection, the origin (FGET), or the journal of an earlier run; and the server, where a block it placed
 * nowhere is counted as failed. The text ({@code relay:2}, {@code direct}, …) names it in statistics and summaries.
 */
sealed interface BlockSource {
    BlockSource DIRECT = Other.DIRECT;
    BlockSource ORIGIN = Other.ORIGIN;
    BlockSource JOURNAL = Other.JOURNAL;
    BlockSource SERVER = Other.SERVER;

    /** The relay's index, or -1 for a source that is not a relay. */
    int relay();

    record Relay(int index) implements BlockSource {
        @Override
        public int relay() {
            return index;
        }

        @Override
        public String toString() {
            return "relay:" + index;
        }
    }

    /** The sources that are not a relay. */
    enum Other implements BlockSource {
        DIRECT, ORIGIN, JOURNAL, SERVER;

        @Override
        public int relay() {
            return -1;
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}

package io.fsp.server.stripe;

import java.util.OptionalLong;

/**
 * Sizes a relay's push window to what the relay drains in {@link #HORIZON_NANOS}, between two blocks and a
 * maximum. First-come-first-served striping keeps every relay's window full; when reading ends, each relay
 * still has its window to drain. With windows of equal bytes a slow relay (say, one sharing its link) drains
 * its window last and alone, and the transfer waits for it; with windows of equal time, all relays finish
 * together.
 *
 * <p>On a link whose round trip is longer than the horizon, a window of the horizon's bytes would idle the
 * link between acknowledgements, and the rate measured through that window would shrink it further. So the
 * window also holds twice the bandwidth-delay product: the measured rate times twice the connection's round
 * trip (the shortest answer to a request without block data, such as OPEN_TRANSFER).
 *
 * <p>A relay acknowledges a block once all of it has arrived, so a block's bytes stay unacknowledged for a round
 * trip plus the time the whole block takes at the relay's share of the link: a quarter of a second for 1 MiB at
 * 33 Mbit/s, longer than the round trip itself. On top of the rate's share, the window therefore keeps two
 * blocks (one on the wire, one being acknowledged): with only the larger of the two, relays sharing a long link
 * wait for acknowledgements and leave it idle (docs/performance.md, {@code bin/bench-wan}).
 */
final class PushWindowTuner {
    /**
     * How much of a relay's drain time its window holds: also how long the last relay may go on alone. Any
     * value gives windows of equal time; a short one keeps fast links' windows small (on loopback, about the
     * 4 MiB that a fixed window of four 1 MiB blocks had).
     */
    static final long HORIZON_NANOS = 20_000_000L;
    /** A rate is measured over at least this long and at least {@link #MIN_ACKS} acknowledgements. */
    private static final long MIN_INTERVAL_NANOS = 200_000_000L;
    private static final int MIN_ACKS = 2;

    private final long blocksBytes;
    private final long maxBytes;
    private long markNanos = -1;
    private long bytesSinceMark;
    private int acksSinceMark;

    /**
     * @param blockSize the transfer's block size: the window holds two blocks beyond the rate's share, so that a
     *                  block is on the wire while the relay acknowledges the one before
     * @param maxBytes  the largest window
     */
    PushWindowTuner(int blockSize, long maxBytes) {
        this.maxBytes = maxBytes;
        this.blocksBytes = 2L * blockSize;
    }

    /** The window before any rate is known: a few blocks, so that a transfer starts at full speed. */
    static long initial(int blockSize, long maxBytes) {
        return Math.min(maxBytes, Math.max(4L * blockSize, 1L << 20));
    }

    /** Notes the first push; rates are measured from here. */
    synchronized void started(long nowNanos) {
        if (markNanos < 0) {
            markNanos = nowNanos;
        }
    }

    /**
     * Notes the acknowledgement at {@code nowNanos} of {@code bytes}, on a connection whose round trip is
     * {@code roundTripNanos} (0: unknown); returns the window to use from now on when a new rate was measured.
     */
    synchronized OptionalLong acknowledged(long bytes, long nowNanos, long roundTripNanos) {
        if (markNanos < 0) {
            markNanos = nowNanos;
        }
        bytesSinceMark += bytes;
        acksSinceMark++;
        long elapsed = nowNanos - markNanos;
        if (elapsed < MIN_INTERVAL_NANOS || acksSinceMark < MIN_ACKS) {
            return OptionalLong.empty();
        }
        double bytesPerNano = (double) bytesSinceMark / elapsed;
        markNanos = nowNanos;
        bytesSinceMark = 0;
        acksSinceMark = 0;
        double holds = Math.max(HORIZON_NANOS, 2.0 * roundTripNanos);
        long window = (long) Math.min(maxBytes, blocksBytes + bytesPerNano * holds);
        return OptionalLong.of(window);
    }
}

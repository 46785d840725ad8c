package io.fsp.relay.net;

/**
 * The relay's bandwidth caps in bytes per second, 0 for none.
 *
 * @param total       {@code --rate-limit}: all that the relay sends, and all that it receives, each at most this
 * @param perTransfer {@code --rate-limit-per-transfer}: the block bytes of one transfer that the relay sends to its
 *                    clients (GETs), and those it receives from its server (PUTs), each at most this, whatever the
 *                    number of connections they take
 */
public record RateLimits(long total, long perTransfer) {
    public static final RateLimits NONE = new RateLimits(0, 0);

    public RateLimits {
        if (total < 0 || perTransfer < 0) {
            throw new IllegalArgumentException("rate: " + Math.min(total, perTransfer) + " bytes/s (expected: >= 0)");
        }
    }

    public boolean any() {
        return total > 0 || perTransfer > 0;
    }
}

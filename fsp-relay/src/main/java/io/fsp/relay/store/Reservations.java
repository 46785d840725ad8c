package io.fsp.relay.store;

import io.fsp.tls.Fingerprint;
import java.util.HashMap;
import java.util.Map;

/**
 * The space the relay has promised to its open transfers, counted three ways: in all (at most {@code quotaBytes}),
 * per server (at most its share, {@code serverQuotaBytes}) and per server for its retained transfers (at most
 * {@code serverRetainedBytes}). A transfer's own reservation (what it may hold at once) is the store's; this
 * class only adds them up and says whether another fits. Not thread-safe: the store calls it under its lock.
 */
final class Reservations {
    private final long quotaBytes;
    private final long serverQuotaBytes;
    private final long serverRetainedBytes;
    private final Map<Fingerprint, Long> byServer = new HashMap<>();
    private final Map<Fingerprint, Long> retainedByServer = new HashMap<>();
    private long total;

    Reservations(StoreConfig config) {
        this.quotaBytes = config.quotaBytes();
        this.serverQuotaBytes = config.serverQuotaBytes();
        this.serverRetainedBytes = config.serverRetainedBytes();
    }

    /** Whether {@code bytes} more for a transfer of {@code owner} stay within the quota and the server's shares. */
    boolean admits(Fingerprint owner, boolean retained, long bytes) {
        return total + bytes <= quotaBytes
                && byServer(owner) + bytes <= serverQuotaBytes
                && (!retained || retainedBy(owner) + bytes <= serverRetainedBytes);
    }

    /** Counts {@code bytes} more (negative: gives them back) for a transfer of {@code owner}. */
    void add(Fingerprint owner, boolean retained, long bytes) {
        total += bytes;
        byServer.merge(owner, bytes, Reservations::sumOrNone);
        if (retained) {
            retainedByServer.merge(owner, bytes, Reservations::sumOrNone);
        }
    }

    /** A server that reserves nothing has no entry: the maps hold only the servers with open transfers. */
    private static Long sumOrNone(long a, long b) {
        return a + b == 0 ? null : a + b;
    }

    /** Bytes reserved by all open transfers. */
    long total() {
        return total;
    }

    long byServer(Fingerprint owner) {
        return byServer.getOrDefault(owner, 0L);
    }

    long retainedBy(Fingerprint owner) {
        return retainedByServer.getOrDefault(owner, 0L);
    }
}

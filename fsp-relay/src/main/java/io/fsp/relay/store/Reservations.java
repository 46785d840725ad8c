package io.fsp.relay.store;

import io.fsp.tls.Fingerprint;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

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

    /**
     * Which limit a reservation of {@code bytes} for a transfer of {@code owner} does not fit, and how much of it is
     * free, e.g. {@code this server's share (--server-quota): 1.5 MiB free of 8 MiB}; empty when it fits.
     */
    Optional<String> shortfall(Fingerprint owner, boolean retained, long bytes) {
        if (total + bytes > quotaBytes) {
            return Optional.of(free("the relay's quota (--quota)", quotaBytes - total, quotaBytes));
        }
        if (byServer(owner) + bytes > serverQuotaBytes) {
            return Optional.of(free("this server's share (--server-quota)", serverQuotaBytes - byServer(owner),
                    serverQuotaBytes));
        }
        if (retained && retainedBy(owner) + bytes > serverRetainedBytes) {
            return Optional.of(free("this server's retained share (--server-retained-space)",
                    serverRetainedBytes - retainedBy(owner), serverRetainedBytes));
        }
        return Optional.empty();
    }

    private static String free(String limit, long free, long of) {
        return limit + ": " + size(Math.max(0, free)) + " free of " + size(of);
    }

    /** {@code 512 bytes}, {@code 1.5 MiB}, {@code 8 MiB}: a size as an operator reads it. */
    static String size(long bytes) {
        if (bytes < 1024) {
            return bytes + " bytes";
        }
        String units = "KMGTPE";
        int u = Math.min(units.length(), (63 - Long.numberOfLeadingZeros(bytes)) / 10);
        long unit = 1L << (10 * u);
        return bytes % unit == 0 ? bytes / unit + " " + units.charAt(u - 1) + "iB"
                : String.format(Locale.ROOT, "%.1f %siB", bytes / (double) unit, units.charAt(u - 1));
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

package io.fsp.relay.store;

import java.nio.file.Path;
import java.time.Duration;

/**
 * @param directory where spilled blocks and retained transfers live: per transfer a directory of one file per
 *                  block, holding nothing but its received bytes, and for a retained transfer its metadata
 * @param quotaBytes all blocks held, in memory and on disk together
 * @param memoryBytes blocks held in memory; the rest go to disk
 * @param ttl a transfer nobody put, fetched or confirmed anything of for this long is dropped
 * @param serverQuotaBytes the most that the transfers of one server may reserve together
 * @param transferSpaceBytes the most one transfer may reserve (and hold at once), however much it declared
 * @param maxRetain how far ahead a retained transfer's expiry may lie when it is opened
 * @param serverRetainedBytes the most that the retained transfers of one server may reserve together (within its
 *                            {@code serverQuotaBytes}): what a server's evacuations may keep for weeks
 */
public record StoreConfig(Path directory, long quotaBytes, long memoryBytes, Duration ttl, long serverQuotaBytes,
                          long transferSpaceBytes, Duration maxRetain, long serverRetainedBytes) {
    /** The daemon's default {@code --max-retain}. */
    public static final Duration DEFAULT_MAX_RETAIN = Duration.ofDays(30);

    public StoreConfig {
        if (quotaBytes < 1) {
            throw new IllegalArgumentException("--quota " + quotaBytes + ": (expected: >= 1 byte)");
        }
        if (memoryBytes < 0) {
            throw new IllegalArgumentException("--memory " + memoryBytes + ": (expected: >= 0)");
        }
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("--ttl " + ttl + ": (expected: > 0)");
        }
        if (serverQuotaBytes < 1 || serverQuotaBytes > quotaBytes) {
            throw new IllegalArgumentException("--server-quota " + serverQuotaBytes + ": (expected: 1.." + quotaBytes
                    + ", at most --quota)");
        }
        if (transferSpaceBytes < 1 || transferSpaceBytes > serverQuotaBytes) {
            throw new IllegalArgumentException("--transfer-space " + transferSpaceBytes + ": (expected: 1.."
                    + serverQuotaBytes + ", at most --server-quota)");
        }
        if (maxRetain.isNegative() || maxRetain.isZero()) {
            throw new IllegalArgumentException("--max-retain " + maxRetain + ": (expected: > 0)");
        }
        if (serverRetainedBytes < 1 || serverRetainedBytes > serverQuotaBytes) {
            throw new IllegalArgumentException("--server-retained-space " + serverRetainedBytes + ": (expected: 1.."
                    + serverQuotaBytes + ", at most --server-quota)");
        }
        memoryBytes = Math.min(memoryBytes, quotaBytes);
    }

    /** Retained transfers bounded only by their server's share. */
    public StoreConfig(Path directory, long quotaBytes, long memoryBytes, Duration ttl, long serverQuotaBytes,
                       long transferSpaceBytes, Duration maxRetain) {
        this(directory, quotaBytes, memoryBytes, ttl, serverQuotaBytes, transferSpaceBytes, maxRetain, serverQuotaBytes);
    }

    /**
     * The daemon's default bound on one server's retained transfers: half its share, so that what its evacuations
     * keep for weeks never takes the room its ordinary transfers stream through.
     */
    public static long defaultServerRetainedSpace(long serverQuotaBytes) {
        return Math.max(1, serverQuotaBytes / 2);
    }

    /**
     * The daemon's default space for one transfer: an eighth of a server's share, so that a few transfers stream
     * side by side, and room for at least one block of the largest size.
     */
    public static long defaultTransferSpace(long serverQuotaBytes, long maxBlockBytes) {
        return Math.min(serverQuotaBytes, Math.max(serverQuotaBytes / 8, maxBlockBytes));
    }

    /**
     * No share below the quota: one server, and one of its transfers, may reserve all of it; the default
     * retention limit.
     */
    public StoreConfig(Path directory, long quotaBytes, long memoryBytes, Duration ttl) {
        this(directory, quotaBytes, memoryBytes, ttl, quotaBytes, quotaBytes, DEFAULT_MAX_RETAIN, quotaBytes);
    }
}

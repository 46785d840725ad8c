package io.fsp.relay.store;

import java.nio.file.Path;
import java.time.Duration;

/**
 * @param directory where spilled blocks live, one file per block; holds nothing but received block bytes
 * @param quotaBytes all blocks held, in memory and on disk together
 * @param memoryBytes blocks held in memory; the rest go to disk
 * @param ttl a transfer nobody put, fetched or confirmed anything of for this long is dropped
 */
public record StoreConfig(Path directory, long quotaBytes, long memoryBytes, Duration ttl) {
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
        memoryBytes = Math.min(memoryBytes, quotaBytes);
    }
}

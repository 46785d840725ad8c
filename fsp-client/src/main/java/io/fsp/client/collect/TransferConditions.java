package io.fsp.client.collect;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What every block's recovery depends on beyond the block itself: whether damaged blocks may be fetched again
 * from relays at all, which relays were announced, which let a request wait out the relay timeout, and whether
 * the destination's disk is full. Shared by all {@link BlockLifecycle}s of a transfer; safe from any thread.
 */
final class TransferConditions {
    private final boolean relayRecovery;
    private final long relayTimeoutMillis;
    private final Set<Integer> announcedRelays = ConcurrentHashMap.newKeySet();
    private final Set<Integer> unresponsive = ConcurrentHashMap.newKeySet();
    private volatile String diskFull;

    /**
     * @param relayRecovery whether a failed block is fetched again from a relay before the origin is asked
     * @param relayTimeoutMillis how long a relay may take to answer one request (named in the failures it causes)
     */
    TransferConditions(boolean relayRecovery, long relayTimeoutMillis) {
        this.relayRecovery = relayRecovery;
        this.relayTimeoutMillis = relayTimeoutMillis;
    }

    boolean relayRecovery() {
        return relayRecovery;
    }

    void relayAnnounced(int relay) {
        announcedRelays.add(relay);
    }

    boolean isAnnounced(int relay) {
        return announcedRelays.contains(relay);
    }

    /**
     * The relay let a request wait out the relay timeout: each block still queued for it would wait as long, one
     * after another, so it is not asked again in this transfer.
     */
    void relayTimedOut(int relay) {
        unresponsive.add(relay);
    }

    long relayTimeoutMillis() {
        return relayTimeoutMillis;
    }

    boolean isUnresponsive(int relay) {
        return unresponsive.contains(relay);
    }

    /** A write failed for want of space: no source can help any more. */
    void diskFull(String cause) {
        diskFull = cause;
    }

    /** Why a write failed for want of space, or null. */
    String diskFull() {
        return diskFull;
    }

    /** Whether a failure's cause says that the file system is full. */
    static boolean meansNoSpace(String cause) {
        return cause != null && (cause.contains("No space left on device") || cause.contains("Disk quota exceeded"));
    }
}

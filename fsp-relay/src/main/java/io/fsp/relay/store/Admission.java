package io.fsp.relay.store;

import io.fsp.tls.Fingerprint;
import io.fsp.token.TransferId;
import java.time.Instant;
import java.util.Optional;

/**
 * What the store lets in: transfers whose reservation fits the quota and their server's shares ({@link Reservations}),
 * and blocks within what their transfer declared and reserved. Called with the store's lock held.
 */
final class Admission {
    private final StoreConfig config;
    private final Reservations reservations;

    Admission(StoreConfig config) {
        this.config = config;
        this.reservations = new Reservations(config);
    }

    /** Why a new transfer is refused, or empty if it may open with {@link #reservation} of {@code space}. */
    Optional<BlockStore.OpenResult> refusal(Fingerprint owner, boolean retained, long space, Instant expiresAt,
                                            Instant now) {
        if (retained && expiresAt.isAfter(now.plus(config.maxRetain()))) {
            return Optional.of(BlockStore.OpenResult.RETENTION_TOO_LONG);
        }
        if (space < 1 || !reservations.admits(owner, retained, reservation(space))) {
            return Optional.of(BlockStore.OpenResult.NO_SPACE);
        }
        return Optional.empty();
    }

    /** What a transfer that declares {@code space} reserves: at most the per-transfer space. */
    long reservation(long space) {
        return Math.min(space, config.transferSpaceBytes());
    }

    /** Whether a retained transfer an earlier run left, holding {@code bytes}, fits beside those restored before it. */
    boolean admitsRestored(Fingerprint owner, long bytes) {
        return reservations.admits(owner, true, bytes);
    }

    /** Refuses a block the store must never hold: larger than the whole quota. */
    void checkSize(int size) throws StoreException {
        if (size > config.quotaBytes()) {
            throw new StoreException(StoreException.Reason.BLOCK_TOO_LARGE,
                    "block: " + size + " bytes (expected: <= quota " + config.quotaBytes() + ")");
        }
    }

    /** Refuses a new block of {@code t} that its transfer may not hold, ever or (retained) now. */
    void checkPut(Transfer t, long seq, int size) throws StoreException {
        TransferId id = t.id;
        if (t.finished) {
            throw new StoreException(StoreException.Reason.SPACE_EXCEEDED, "block " + seq + ": transfer " + id
                    + " is finished (its server pushes nothing more into it)");
        }
        if (size > t.reservation) {
            throw new StoreException(StoreException.Reason.BLOCK_TOO_LARGE, "block: " + size
                    + " bytes (expected: <= the " + t.reservation + " bytes reserved for transfer " + id + ")");
        }
        if (t.pushed + size > t.space) {
            throw new StoreException(StoreException.Reason.SPACE_EXCEEDED, "block " + seq + ": " + size
                    + " bytes more than the " + (t.space - t.pushed) + " left of the " + t.space
                    + " bytes transfer " + id + " declared");
        }
        if (t.retained && t.held + size > t.reservation) {
            throw new StoreException(StoreException.Reason.NO_SPACE, "block " + seq + ": " + size + " bytes more than"
                    + " the " + (t.reservation - t.held) + " left of the " + t.reservation + " bytes reserved"
                    + " for retained transfer " + id + " (nobody confirms its blocks before its collector"
                    + " comes); try another relay");
        }
    }

    /** Whether {@code t} may hold {@code size} more bytes now, with no put waiting before it. */
    boolean fitsNow(Transfer t, int size) {
        return t.held + size <= t.reservation;
    }

    /** Takes a transfer's reservation. */
    void reserve(Transfer t) {
        reservations.add(t.owner, t.retained, t.reservation);
    }

    /** Returns a closed transfer's reservation. */
    void unreserve(Transfer t) {
        reservations.add(t.owner, t.retained, -t.reservation);
    }

    /** Gives back {@code bytes} of an open transfer's reservation to the relay. */
    void shrink(Transfer t, long bytes) {
        t.reservation -= bytes;
        reservations.add(t.owner, t.retained, -bytes);
    }

    /** Why a transfer that declares {@code space} is refused NO_SPACE now; empty if it fits. */
    Optional<String> shortfall(Fingerprint owner, boolean retained, long space) {
        return reservations.shortfall(owner, retained, reservation(space));
    }

    /** Bytes reserved by the open transfers. */
    long total() {
        return reservations.total();
    }
}

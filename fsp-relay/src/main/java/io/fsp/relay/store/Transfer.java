package io.fsp.relay.store;

import io.fsp.tls.Fingerprint;
import io.fsp.token.TokenKey;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** An open transfer of the store: what it declared and reserved, and the blocks it holds. Guarded by the store. */
final class Transfer {
    final TransferId id;
    final TokenKey key;
    final Fingerprint owner;
    final Instant expiresAt;
    /** Block bytes the server declared it would push here. */
    final long space;
    /** What the relay reserved for the transfer: the most it holds at once; once finished, what it holds. */
    long reservation;
    /** Its server pushes nothing more into it ({@link BlockStore#finish}). */
    boolean finished;
    /** Kept on disk until its expiry, across restarts. */
    final boolean retained;
    /** Completes once the transfer is open: at once, or for a retained one once its metadata is on disk. */
    final CompletableFuture<Void> kept;
    final Map<Long, Held> blocks = new HashMap<>();
    final Set<Long> writing = new HashSet<>();
    /** Puts waiting for the transfer to hold less, in arrival order. */
    final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    Instant lastActivity;
    /** Bytes of the blocks in {@link #blocks}. */
    long bytes;
    /** Bytes of the blocks held or being stored: at most {@link #reservation}. */
    long held;
    /** Bytes of all blocks accepted so far, confirmed ones too: at most {@link #space}. */
    long pushed;

    Transfer(TransferId id, TokenKey key, Instant expiresAt, long space, long reservation, Fingerprint owner,
             boolean retained, Instant now) {
        this.id = id;
        this.retained = retained;
        this.kept = retained ? new CompletableFuture<>() : CompletableFuture.completedFuture(null);
        this.key = key;
        this.owner = owner;
        this.expiresAt = expiresAt;
        this.space = space;
        this.reservation = reservation;
        this.lastActivity = now;
    }

    void touch(Instant now) {
        lastActivity = now;
    }

    RetainedTransfer record() {
        return new RetainedTransfer(id, key, expiresAt, space, reservation, owner);
    }

    /** A held block: in memory or in a file. */
    record Held(ByteBuf memory, Path file, int size) {
    }

    /** A put admitted or waiting for quota. */
    record Waiter(TransferId id, long seq, ByteBuf block, int size, CompletableFuture<Void> done) {
    }
}

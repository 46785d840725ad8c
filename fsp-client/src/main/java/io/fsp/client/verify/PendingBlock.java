package io.fsp.client.verify;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/** A block of {@link FiverVerifier} between submit and verdict. */
final class PendingBlock {
    final BlockRef block;
    final ByteBuffer data;
    final byte[] expected;
    final Runnable release;
    final CompletableFuture<BlockVerdict> verdict = new CompletableFuture<>();
    /** Write and hash: when both are done the buffer is released. */
    final AtomicInteger bufferUsers;
    // Guarded by the lock of FlushGroups.
    boolean written;
    boolean hashed;
    boolean takenForFlush;
    boolean flushed;
    FlushGroups.SyncPoint syncPoint;
    volatile byte[] actual = new byte[0];
    volatile String failure;

    PendingBlock(BlockRef block, ByteBuffer data, byte[] expected, Runnable release, boolean hashed) {
        this.block = block;
        this.data = data;
        this.expected = expected;
        this.release = release;
        this.bufferUsers = new AtomicInteger(hashed ? 2 : 1);
        this.hashed = !hashed; // nothing to wait for when the mode does not hash buffers
    }
}

package io.fsp.client.verify;

/**
 * What the verifier did, in the order it did it, for progress displays, logs and tests that check
 * ordering (a verdict must never precede the flush that covers its block).
 *
 * <p>Listeners are called on the verifier's own threads and must return quickly.
 */
public sealed interface VerificationEvent {
    /** The block's bytes were handed to the file system (they may still be only in the page cache). */
    record Written(BlockRef block) implements VerificationEvent {
    }

    /** The in-memory buffer of the block has been hashed. */
    record Hashed(BlockRef block) implements VerificationEvent {
    }

    /**
     * {@code fdatasync} of a file returned: every block of that file reported {@link Written} before
     * this event is durable.
     */
    record Flushed(String path) implements VerificationEvent {
    }

    /** Mode riva: the block's range was read back from disk around the page cache and hashed. */
    record Reread(BlockRef block) implements VerificationEvent {
    }

    /** The final outcome for one block. */
    record Verdict(BlockVerdict verdict) implements VerificationEvent {
    }
}

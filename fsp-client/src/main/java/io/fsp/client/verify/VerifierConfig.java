package io.fsp.client.verify;

import io.fsp.checksum.ChecksumAlgorithm;
import java.util.Objects;

/**
 * Knobs of the verifier.
 *
 * @param mode fiver, riva or off
 * @param algorithm the block digest the server announced with
 * @param queueDepth how many blocks may be between {@code submit} and the release of their buffer;
 *     bounds memory at {@code queueDepth × block size} and makes a fast producer wait for a slow disk
 *     or hash (paper 000 §III; paper 002 §5.4 finds small queues best)
 * @param hashThreads threads hashing buffers; blocks are digested independently, so more than one
 *     thread helps when hashing is slower than the disk
 * @param writerThreads threads doing positional writes
 */
public record VerifierConfig(VerificationMode mode, ChecksumAlgorithm algorithm, int queueDepth, int hashThreads, int writerThreads) {
    public static final int MAX_QUEUE_DEPTH = 4096;
    public static final int MAX_THREADS = 64;

    public VerifierConfig {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(algorithm, "algorithm");
        if (queueDepth < 1 || queueDepth > MAX_QUEUE_DEPTH) {
            throw new IllegalArgumentException("queueDepth: " + queueDepth + " (expected: 1.." + MAX_QUEUE_DEPTH + ")");
        }
        if (hashThreads < 1 || hashThreads > MAX_THREADS) {
            throw new IllegalArgumentException("hashThreads: " + hashThreads + " (expected: 1.." + MAX_THREADS + ")");
        }
        if (writerThreads < 1 || writerThreads > MAX_THREADS) {
            throw new IllegalArgumentException("writerThreads: " + writerThreads + " (expected: 1.." + MAX_THREADS + ")");
        }
    }

    /** FIVER with SHA-256, 16 blocks in flight, one hashing and one writing thread. */
    public static VerifierConfig defaults() {
        return new VerifierConfig(VerificationMode.FIVER, ChecksumAlgorithm.SHA256, 16, 1, 1);
    }

    public VerifierConfig withMode(VerificationMode m) {
        return new VerifierConfig(m, algorithm, queueDepth, hashThreads, writerThreads);
    }

    public VerifierConfig withAlgorithm(ChecksumAlgorithm a) {
        return new VerifierConfig(mode, a, queueDepth, hashThreads, writerThreads);
    }

    public VerifierConfig withQueueDepth(int depth) {
        return new VerifierConfig(mode, algorithm, depth, hashThreads, writerThreads);
    }

    public VerifierConfig withHashThreads(int n) {
        return new VerifierConfig(mode, algorithm, queueDepth, n, writerThreads);
    }

    public VerifierConfig withWriterThreads(int n) {
        return new VerifierConfig(mode, algorithm, queueDepth, hashThreads, n);
    }
}

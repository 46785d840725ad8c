package io.fsp.meridian;

/**
 * A node's clock and timer. Every callback runs on the one thread that also delivers the node's
 * messages (a Netty event loop, or the simulator's virtual-time loop), so node state needs no locks.
 */
public interface MeridianScheduler {
    /** Monotonic time in nanoseconds (virtual time in the simulator). */
    long nanoTime();

    /** Runs {@code task} after {@code delayNanos}; the returned handle cancels it. */
    Cancellable schedule(long delayNanos, Runnable task);

    /** A scheduled task that may still be cancelled. */
    interface Cancellable {
        void cancel();
    }
}

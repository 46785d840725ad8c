package io.fsp.relay.net;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Bytes of spilled blocks read back from disk and not yet written to their clients, across all
 * connections. A read waits for budget, so many clients fetching spilled blocks at once cannot make the
 * relay allocate without bound; budget returns when the block has been written.
 */
public final class ReadBudget {
    private final long limit;
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private long used;

    public ReadBudget(long limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("read budget: " + limit + " (expected: >= 1)");
        }
        this.limit = limit;
    }

    /** Completes once {@code bytes} are granted (a request above the limit waits for the whole budget). */
    public CompletableFuture<Void> acquire(long bytes) {
        long n = Math.min(bytes, limit);
        if (n <= 0) {
            return CompletableFuture.completedFuture(null);
        }
        synchronized (this) {
            if (waiters.isEmpty() && used + n <= limit) {
                used += n;
                return CompletableFuture.completedFuture(null);
            }
            Waiter w = new Waiter(n, new CompletableFuture<>());
            waiters.add(w);
            return w.granted;
        }
    }

    public void release(long bytes) {
        long n = Math.min(bytes, limit);
        if (n <= 0) {
            return;
        }
        List<CompletableFuture<Void>> granted = new ArrayList<>();
        synchronized (this) {
            used -= n;
            while (!waiters.isEmpty() && used + waiters.peek().bytes <= limit) {
                Waiter w = waiters.poll();
                used += w.bytes;
                granted.add(w.granted);
            }
        }
        granted.forEach(g -> g.complete(null)); // outside the lock: callers continue from here
    }

    public synchronized long used() {
        return used;
    }

    private record Waiter(long bytes, CompletableFuture<Void> granted) {
    }
}

package io.fsp.server.ftp;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts control connections, in total and per client address, against the configured limits. */
public final class ConnectionLimits {
    private final int maxTotal;
    private final int maxPerAddress;
    private final AtomicInteger total = new AtomicInteger();
    private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();

    public ConnectionLimits(int maxTotal, int maxPerAddress) {
        this.maxTotal = maxTotal;
        this.maxPerAddress = maxPerAddress;
    }

    /** Takes a slot for {@code address}; returns why not if a limit is reached, else {@code null}. */
    public String tryAcquire(InetAddress address) {
        if (total.incrementAndGet() > maxTotal) {
            total.decrementAndGet();
            return "Too many connections (" + maxTotal + "); try again later";
        }
        boolean[] refused = {false};
        perAddress.compute(address, (a, n) -> {
            int count = n == null ? 0 : n;
            if (count >= maxPerAddress) {
                refused[0] = true;
                return n;
            }
            return count + 1;
        });
        if (refused[0]) {
            total.decrementAndGet();
            return "Too many connections from your address (" + maxPerAddress + "); try again later";
        }
        return null;
    }

    public void release(InetAddress address) {
        total.decrementAndGet();
        perAddress.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
    }

    public int total() {
        return total.get();
    }
}

package io.fsp.server.auth;

import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Slows down password guessing: after each failed login from an address, the reply waits
 * {@code baseDelay × 2^(failures−1)}, at most 16 × {@code baseDelay}. A success clears the address; an
 * address that stays quiet for {@link #FORGET_AFTER} is forgotten.
 */
public final class LoginThrottle {
    static final Duration FORGET_AFTER = Duration.ofMinutes(15);
    private static final int MAX_TRACKED = 100_000;
    private static final int MAX_DOUBLINGS = 4;

    private final Duration baseDelay;
    private final ConcurrentHashMap<InetAddress, Failures> failures = new ConcurrentHashMap<>();

    private record Failures(int count, long lastNanos) {
    }

    public LoginThrottle(Duration baseDelay) {
        if (baseDelay.isNegative()) {
            throw new IllegalArgumentException("login-failure-delay: " + baseDelay + " (expected: >= 0)");
        }
        this.baseDelay = baseDelay;
    }

    /** Records a failed login from {@code address}; returns how long to wait before answering. */
    public Duration failed(InetAddress address) {
        long now = System.nanoTime();
        if (failures.size() >= MAX_TRACKED) {
            failures.values().removeIf(f -> now - f.lastNanos > FORGET_AFTER.toNanos());
            if (failures.size() >= MAX_TRACKED) {
                failures.clear();
            }
        }
        Failures f = failures.compute(address, (a, old) ->
                old == null || now - old.lastNanos > FORGET_AFTER.toNanos()
                        ? new Failures(1, now) : new Failures(old.count + 1, now));
        return baseDelay.multipliedBy(1L << Math.min(f.count - 1, MAX_DOUBLINGS));
    }

    public void succeeded(InetAddress address) {
        failures.remove(address);
    }
}

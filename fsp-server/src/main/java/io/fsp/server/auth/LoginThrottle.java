package io.fsp.server.auth;

import java.net.InetAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Slows down password guessing: after each failed login from an address, the reply waits
 * {@code baseDelay × 2^(failures−1)}, at most 16 × {@code baseDelay}. A success clears the address; an
 * address that stays quiet for {@link #FORGET_AFTER} is forgotten. At most {@code maxTracked} addresses are kept,
 * the least recently failed one forgotten first: a flood of new addresses cannot wipe out what is known of the
 * others (the table was once cleared wholesale when full).
 */
public final class LoginThrottle {
    static final Duration FORGET_AFTER = Duration.ofMinutes(15);
    static final int MAX_TRACKED = 100_000;
    private static final int MAX_DOUBLINGS = 4;

    private final Duration baseDelay;
    private final Map<InetAddress, Failures> failures; // access order: the eldest is the least recently failed

    private record Failures(int count, long lastNanos) {
    }

    public LoginThrottle(Duration baseDelay) {
        this(baseDelay, MAX_TRACKED);
    }

    LoginThrottle(Duration baseDelay, int maxTracked) {
        if (baseDelay.isNegative()) {
            throw new IllegalArgumentException("login-failure-delay: " + baseDelay + " (expected: >= 0)");
        }
        this.baseDelay = baseDelay;
        this.failures = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<InetAddress, Failures> eldest) {
                return size() > maxTracked;
            }
        };
    }

    /** Records a failed login from {@code address}; returns how long to wait before answering. */
    public synchronized Duration failed(InetAddress address) {
        long now = System.nanoTime();
        Failures old = failures.get(address);
        Failures f = old == null || now - old.lastNanos > FORGET_AFTER.toNanos()
                ? new Failures(1, now) : new Failures(old.count + 1, now);
        failures.put(address, f);
        return baseDelay.multipliedBy(1L << Math.min(f.count - 1, MAX_DOUBLINGS));
    }

    public synchronized void succeeded(InetAddress address) {
        failures.remove(address);
    }
}

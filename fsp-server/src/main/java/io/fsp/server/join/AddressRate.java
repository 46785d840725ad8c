package io.fsp.server.join;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * At most {@code limit} events per address (an IPv6 address: its /64) in a sliding {@code window}. The table is
 * bounded: when it is full, addresses with no event in the window are dropped, and if none is, every address is
 * refused until the window passes, so a flood of addresses costs memory up to the bound only.
 */
final class AddressRate {
    private static final int MAX_ADDRESSES = 4096;
    private final int limit;
    private final Duration window;
    private final Map<String, Deque<Instant>> events = new HashMap<>();

    AddressRate(int limit, Duration window) {
        this.limit = limit;
        this.window = window;
    }

    /** Counts an event of {@code address}; false (and not counted) when it is over the limit. */
    synchronized boolean allow(InetAddress address, Instant now) {
        Instant since = now.minus(window);
        String key = key(address);
        if (!events.containsKey(key) && events.size() >= MAX_ADDRESSES) {
            events.values().forEach(d -> prune(d, since));
            events.values().removeIf(Deque::isEmpty);
            if (events.size() >= MAX_ADDRESSES) {
                return false;
            }
        }
        Deque<Instant> times = events.computeIfAbsent(key, k -> new ArrayDeque<>());
        prune(times, since);
        if (times.size() >= limit) {
            return false;
        }
        times.addLast(now);
        return true;
    }

    private static void prune(Deque<Instant> times, Instant since) {
        while (!times.isEmpty() && !times.peekFirst().isAfter(since)) {
            times.removeFirst();
        }
    }

    private static String key(InetAddress address) {
        byte[] b = address.getAddress();
        return address instanceof Inet6Address ? Arrays.toString(Arrays.copyOf(b, 8)) : Arrays.toString(b);
    }
}

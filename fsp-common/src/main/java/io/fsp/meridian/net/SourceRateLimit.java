package io.fsp.meridian.net;

import io.fsp.net.AddressPrefix;
import java.net.InetAddress;
import java.security.SecureRandom;

/**
 * Datagrams per second per source host (an IPv4 address, an IPv6 /64: {@link AddressPrefix#host}), as token buckets
 * in a fixed table: the state is the same size whatever the number of sources. Addresses map to slots by a hash keyed with a random value, so a sender cannot
 * choose addresses that share a slot with another's; two addresses that happen to share one share its rate.
 * Not thread-safe: one datagram handler uses it from its event loop.
 */
final class SourceRateLimit {
    private static final int SLOT_BITS = 12;

    private final double perSecond;
    private final double burst;
    private final long[] keys = new long[16];
    private final double[] tokens = new double[1 << SLOT_BITS];
    private final long[] at = new long[1 << SLOT_BITS];
    private final boolean[] used = new boolean[1 << SLOT_BITS];

    /** {@code perSecond} datagrams per second, with a burst of two seconds' worth. */
    SourceRateLimit(int perSecond) {
        this.perSecond = perSecond;
        this.burst = 2.0 * perSecond;
        SecureRandom random = new SecureRandom();
        for (int i = 0; i < keys.length; i++) {
            keys[i] = random.nextLong() | 1;
        }
    }

    /** Takes one datagram's token for {@code source}; false if its slot has none left. */
    boolean allow(InetAddress source, long nowNanos) {
        int slot = slot(AddressPrefix.host(source).getAddress());
        double t = used[slot] ? Math.min(burst, tokens[slot] + (nowNanos - at[slot]) * perSecond / 1e9) : burst;
        used[slot] = true;
        at[slot] = nowNanos;
        if (t < 1) {
            tokens[slot] = t;
            return false;
        }
        tokens[slot] = t - 1;
        return true;
    }

    private int slot(byte[] ip) {
        long h = 0;
        for (int i = 0; i < ip.length; i++) {
            h += ((ip[i] & 0xFF) + 1L) * keys[i];
        }
        return (int) (h >>> (64 - SLOT_BITS));
    }
}

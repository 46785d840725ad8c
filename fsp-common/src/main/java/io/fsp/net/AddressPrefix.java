package io.fsp.net;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The network an address belongs to, for limits that count peers: one IPv6 host or site holds a whole prefix of
 * addresses (a /64 at least), so a cap per IPv6 address caps nothing. IPv4-mapped IPv6 addresses are IPv4 (the JDK
 * gives them as such).
 */
public final class AddressPrefix {
    /** What a per-host limit counts: an IPv4 address, an IPv6 /64 (the smallest subnet one host is given). */
    public static final int HOST_V4_BITS = 32;
    public static final int HOST_V6_BITS = 64;
    /** What a per-site limit counts: an IPv4 /24, an IPv6 /48 (the smallest prefixes routed on the Internet). */
    public static final int SITE_V4_BITS = 24;
    public static final int SITE_V6_BITS = 48;

    private AddressPrefix() {
    }

    /** {@code address} with all but its first {@code v4Bits} (IPv4) or {@code v6Bits} (IPv6) bits zero. */
    public static InetAddress of(InetAddress address, int v4Bits, int v6Bits) {
        byte[] bytes = address.getAddress();
        int bits = bytes.length == 4 ? v4Bits : v6Bits;
        if (bits < 0 || bits > bytes.length * 8) {
            throw new IllegalArgumentException("prefix /" + bits + " (expected: 0.." + bytes.length * 8 + ")");
        }
        for (int i = 0; i < bytes.length; i++) {
            int keep = Math.max(0, Math.min(8, bits - 8 * i));
            bytes[i] &= (byte) (0xFF00 >> keep);
        }
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("an address of " + bytes.length + " bytes", e);
        }
    }

    /** The host {@code address} stands for: itself if IPv4, its /64 if IPv6. */
    public static InetAddress host(InetAddress address) {
        return of(address, HOST_V4_BITS, HOST_V6_BITS);
    }

    /**
     * Whether {@code address} is of a private network: IPv4 10/8, 172.16/12, 192.168/16 and link-local 169.254/16, IPv6
     * unique-local fc00::/7 and link-local fe80::/10. Its prefixes say nothing of who holds its addresses (one /24 of a
     * data center's network holds hundreds of hosts), and nobody on the Internet receives at them.
     */
    public static boolean privateNetwork(InetAddress address) {
        byte[] bytes = address.getAddress();
        return address.isSiteLocalAddress() || address.isLinkLocalAddress()
                || (bytes.length == 16 && (bytes[0] & 0xFE) == 0xFC);
    }

    /** The site {@code address} belongs to: its /24 if IPv4, its /48 if IPv6. */
    public static InetAddress site(InetAddress address) {
        return of(address, SITE_V4_BITS, SITE_V6_BITS);
    }
}

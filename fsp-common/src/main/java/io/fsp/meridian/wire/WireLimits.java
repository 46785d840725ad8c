package io.fsp.meridian.wire;

/**
 * Size limits a decoder enforces before it allocates anything.
 *
 * @param maxMessageBytes largest datagram accepted
 * @param maxEntries      largest list (gossip peers, query hits, ring entries) accepted
 * @param maxTargets      most constraint targets a query or measure request may name
 */
public record WireLimits(int maxMessageBytes, int maxEntries, int maxTargets) {
    /**
     * 4 KiB datagrams; 160 entries, so that a rings reply of 160 IPv6 members (25 bytes each) still fits (a
     * node with more sends its innermost 160); 16 targets, so that a ring of 16 members can measure itself
     * for the hypervolume rule.
     */
    public static final WireLimits DEFAULT = new WireLimits(4096, 160, 16);

    public WireLimits {
        if (maxMessageBytes < 64 || maxMessageBytes > 65507) {
            throw new IllegalArgumentException("maxMessageBytes: " + maxMessageBytes + " (expected: 64..65507)");
        }
        if (maxEntries < 1 || maxEntries > 255) {
            throw new IllegalArgumentException("maxEntries: " + maxEntries + " (expected: 1..255)");
        }
        if (maxTargets < 1 || maxTargets > 32) {
            throw new IllegalArgumentException("maxTargets: " + maxTargets + " (expected: 1..32)");
        }
    }
}

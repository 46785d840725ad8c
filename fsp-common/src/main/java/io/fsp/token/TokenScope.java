package io.fsp.token;

/**
 * What a token allows within its transfer: reading blocks (GET, STATUS) and confirming them (which frees
 * them at the relay), for block sequence numbers {@code firstSeq..lastSeq} inclusive.
 */
public record TokenScope(boolean read, boolean confirm, long firstSeq, long lastSeq) {
    /** Read and confirm every block of the transfer: what a receiving client gets. */
    public static final TokenScope ALL = new TokenScope(true, true, 0, Long.MAX_VALUE);

    public TokenScope {
        if (firstSeq < 0 || lastSeq < firstSeq) {
            throw new IllegalArgumentException("scope seq range: " + firstSeq + ".." + lastSeq
                    + " (expected: 0 <= first <= last)");
        }
    }

    public boolean covers(long seq) {
        return seq >= firstSeq && seq <= lastSeq;
    }

    int flags() {
        return (read ? 1 : 0) | (confirm ? 2 : 0);
    }

    static TokenScope of(int flags, long firstSeq, long lastSeq) {
        if ((flags & ~3) != 0) {
            throw new IllegalArgumentException("scope flags: 0x" + Integer.toHexString(flags) + " (expected: <= 0x3)");
        }
        return new TokenScope((flags & 1) != 0, (flags & 2) != 0, firstSeq, lastSeq);
    }
}

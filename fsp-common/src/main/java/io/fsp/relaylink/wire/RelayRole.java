package io.fsp.relaylink.wire;

/** What a relay lets a connection do, decided by the TLS handshake and told in WELCOME. */
public enum RelayRole {
    /** Presented a trusted certificate: may open transfers and put blocks (and also fetch, with tokens). */
    SERVER(1),
    /** No trusted certificate: may fetch, confirm and ask status with capability tokens. */
    CLIENT(2);

    private final int wire;

    RelayRole(int wire) {
        this.wire = wire;
    }

    public int wire() {
        return wire;
    }

    static RelayRole ofWire(int wire) {
        for (RelayRole r : values()) {
            if (r.wire == wire) {
                return r;
            }
        }
        throw new IllegalArgumentException("role: " + wire + " (expected: 1 or 2)");
    }
}

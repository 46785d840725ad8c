package io.fsp.relaylink.wire;

/** The error codes an ERROR frame carries; the wire value never changes once published. */
public enum RelayErrorCode {
    /** A malformed, oversized or unknown frame; the relay closes the connection after saying so. */
    BAD_FRAME(1),
    /** The first frame was not HELLO, or the version is not spoken. */
    BAD_HANDSHAKE(2),
    /** A server operation from a peer without a trusted certificate. */
    NOT_A_TRUSTED_SERVER(3),
    /** The transfer is not (or no longer) open at this relay. */
    UNKNOWN_TRANSFER(4),
    /** The token is not a token. */
    TOKEN_MALFORMED(5),
    /** The token's MAC does not match the transfer's key. */
    TOKEN_FORGED(6),
    /** The token has expired. */
    TOKEN_EXPIRED(7),
    /** No token presented on this connection covers this transfer, block or operation. */
    TOKEN_FOREIGN(8),
    /** The block is larger than this relay's quota or frame limit. */
    BLOCK_TOO_LARGE(9),
    /** OPEN_TRANSFER for a transfer id that is already open with another key. */
    TRANSFER_EXISTS(10),
    /** The relay could not store or read a block (disk error); the request may be retried elsewhere. */
    STORE_FAILED(11),
    /** Too many requests in flight on one connection. */
    TOO_MANY_REQUESTS(12),
    /** PUT_BLOCK bytes that are not a sound block of this transfer and sequence number (checksum, header). */
    BAD_BLOCK(13),
    /**
     * OPEN_TRANSFER whose space the relay cannot reserve (its quota, or the server's share of it, is taken), or a
     * PUT_BLOCK of a retained transfer beyond its reservation.
     */
    NO_SPACE(14),
    /** PUT_BLOCK beyond the space its transfer declared at OPEN_TRANSFER. */
    SPACE_EXCEEDED(15),
    /** No credentials in time: neither a trusted server's HELLO nor an accepted token; the connection closes. */
    AUTH_TIMEOUT(16),
    /** Too many requests refused on one connection without a trusted certificate; the connection closes. */
    TOO_MANY_REFUSALS(17),
    /** OPEN_TRANSFER of a retained transfer whose expiry lies beyond the relay's {@code --max-retain}. */
    RETENTION_TOO_LONG(18),
    /**
     * AUTHORIZE from a client connection beyond the relay's caps on connections holding tokens (per address, per
     * transfer, or in all, where the rest is kept for servers); the connection closes.
     */
    TOO_MANY_CONNECTIONS(19),
    /** An error code this version does not know (from a newer peer). */
    UNKNOWN(0);

    private final int wire;

    RelayErrorCode(int wire) {
        this.wire = wire;
    }

    public int wire() {
        return wire;
    }

    public static RelayErrorCode ofWire(int wire) {
        for (RelayErrorCode c : values()) {
            if (c.wire == wire) {
                return c;
            }
        }
        return UNKNOWN;
    }
}

package io.fsp.token;

/** A capability token that must be refused, with the reason a relay reports to the peer. */
public final class TokenException extends Exception {
    /** Why a token was refused. */
    public enum Reason {
        /** Not a token at all: wrong length, version or fields. */
        MALFORMED,
        /** The MAC does not match: made without the transfer's key, or altered. */
        FORGED,
        /** Past its expiry. */
        EXPIRED,
        /** Valid, but for another transfer, another block range, or another operation. */
        FOREIGN
    }

    private final Reason reason;

    public TokenException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}

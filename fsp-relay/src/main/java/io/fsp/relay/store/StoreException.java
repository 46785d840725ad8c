package io.fsp.relay.store;

/** A request the store refuses or cannot carry out, and why; the network layer says it in the protocol's words. */
public final class StoreException extends Exception {
    /** Why the store refused. */
    public enum Reason {
        /** The transfer is not open (never opened, ended, aborted or expired, or closed meanwhile). */
        UNKNOWN_TRANSFER,
        /** The block is larger than the store or the transfer's reservation can ever hold. */
        BLOCK_TOO_LARGE,
        /** The block goes beyond what its transfer declared, or the transfer is finished. */
        SPACE_EXCEEDED,
        /** No room now, and waiting would not make any (a retained transfer). */
        NO_SPACE,
        /** The disk failed. */
        FAILED
    }

    private final Reason reason;

    public StoreException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public StoreException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}

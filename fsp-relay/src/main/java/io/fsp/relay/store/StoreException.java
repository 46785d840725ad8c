package io.fsp.relay.store;

import io.fsp.relaylink.wire.RelayErrorCode;

/** A put or get the store refuses, with the error code the relay sends back. */
public final class StoreException extends Exception {
    private final RelayErrorCode code;

    public StoreException(RelayErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public StoreException(RelayErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public RelayErrorCode code() {
        return code;
    }
}

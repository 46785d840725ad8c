package io.fsp.relay.net;

import io.fsp.relay.store.StoreException;
import io.fsp.relaylink.wire.RelayErrorCode;

/** The error code a peer gets for what the store refused. */
final class StoreErrors {
    private StoreErrors() {
    }

    static RelayErrorCode code(StoreException e) {
        return switch (e.reason()) {
            case UNKNOWN_TRANSFER -> RelayErrorCode.UNKNOWN_TRANSFER;
            case BLOCK_TOO_LARGE -> RelayErrorCode.BLOCK_TOO_LARGE;
            case SPACE_EXCEEDED -> RelayErrorCode.SPACE_EXCEEDED;
            case NO_SPACE -> RelayErrorCode.NO_SPACE;
            case FAILED -> RelayErrorCode.STORE_FAILED;
        };
    }
}

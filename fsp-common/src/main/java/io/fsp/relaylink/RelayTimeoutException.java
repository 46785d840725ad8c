package io.fsp.relaylink;

import java.net.InetSocketAddress;

/** The relay did not answer a request in time (a stalled relay); the connection stays open. */
public final class RelayTimeoutException extends RelayException {
    public RelayTimeoutException(InetSocketAddress relay, String message) {
        super(relay, message, null);
    }
}

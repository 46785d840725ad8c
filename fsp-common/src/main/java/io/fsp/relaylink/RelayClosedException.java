package io.fsp.relaylink;

import java.net.InetSocketAddress;

/** The relay could not be reached, refused the TLS handshake, or the connection died: a dead relay. */
public final class RelayClosedException extends RelayException {
    public RelayClosedException(InetSocketAddress relay, String message, Throwable cause) {
        super(relay, message, cause);
    }
}

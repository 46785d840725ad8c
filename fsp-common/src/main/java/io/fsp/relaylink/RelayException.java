package io.fsp.relaylink;

import java.io.IOException;
import java.net.InetSocketAddress;

/** Something went wrong talking to one relay; the subclass says what, {@link #relay()} says where. */
public abstract sealed class RelayException extends IOException
        permits RelayClosedException, RelayTimeoutException, RelayRefusedException, BlockNotFoundException {
    private final InetSocketAddress relay;

    RelayException(InetSocketAddress relay, String message, Throwable cause) {
        super("relay " + relay.getHostString() + ":" + relay.getPort() + ": " + message, cause);
        this.relay = relay;
    }

    public InetSocketAddress relay() {
        return relay;
    }
}

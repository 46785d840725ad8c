package io.fsp.relaylink;

import java.net.InetSocketAddress;

/** The relay could not be reached, refused the TLS handshake, or the connection died: a dead relay. */
public final class RelayClosedException extends RelayException {
    public RelayClosedException(InetSocketAddress relay, String message, Throwable cause) {
        super(relay, message, cause);
    }

    /** The connection to {@code relay} closed, after {@code failure} or (null) without one. */
    static RelayClosedException after(InetSocketAddress relay, Throwable failure) {
        String why = failure == null ? "connection closed" : "connection closed: " + innermostMessage(failure);
        return new RelayClosedException(relay, why, failure);
    }

    /**
     * The message of the deepest cause that has one: OpenSSL reports a refused certificate as "General
     * OpenSslEngine problem" and keeps the trust manager's reason (which fingerprint) in a cause.
     */
    private static String innermostMessage(Throwable t) {
        String message = t.getMessage();
        for (Throwable c = t.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            if (c.getMessage() != null) {
                message = c.getMessage();
            }
        }
        return message;
    }
}

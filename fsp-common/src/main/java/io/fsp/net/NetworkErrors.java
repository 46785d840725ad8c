package io.fsp.net;

import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.util.Locale;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * Network errors that name the address they concern: the JDK's and Netty's say "Connection refused" without it (or
 * "/127.0.0.1:2121" in their own form), which leaves a user of several servers and relays guessing. The kind of the
 * exception is kept, so that callers can still tell a refused connection from a broken one.
 */
public final class NetworkErrors {
    private NetworkErrors() {
    }

    /** {@code e} as "WHERE: what happened" (WHERE e.g. {@link HostPort#toString()}), of the same kind, with {@code e} as its cause. */
    public static IOException at(String where, Throwable e) {
        String what = where + ": " + reason(e);
        IOException named;
        if (e instanceof ConnectException) {
            named = new ConnectException(what);
        } else if (e instanceof NoRouteToHostException) {
            named = new NoRouteToHostException(what);
        } else if (e instanceof UnknownHostException) {
            named = new UnknownHostException(what);
        } else if (e instanceof SocketTimeoutException) {
            named = new SocketTimeoutException(what);
        } else if (e instanceof SSLHandshakeException) {
            named = new SSLHandshakeException(what);
        } else if (e instanceof SSLException) {
            return new SSLException(what, e);
        } else {
            return new IOException(what, e);
        }
        named.initCause(e);
        return named;
    }

    /** The message without the address the JDK or Netty appended, starting lower case ("connection refused"). */
    public static String reason(Throwable e) {
        if (e instanceof UnknownHostException) {
            return "unknown host";
        }
        String m = e.getMessage();
        if (m == null || m.isBlank()) {
            return e.getClass().getSimpleName();
        }
        m = m.replaceFirst(":\\s*\\S*/\\S+:\\d+$", ""); // Netty: "Connection refused: /127.0.0.1:2121"
        if (m.length() > 1 && Character.isUpperCase(m.charAt(0)) && Character.isLowerCase(m.charAt(1))) {
            m = m.substring(0, 1).toLowerCase(Locale.ROOT) + m.substring(1);
        }
        return m;
    }
}

package io.fsp.cli;

import io.fsp.client.control.ControlException;
import io.fsp.client.write.DestinationException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.security.cert.CertificateException;
import javax.net.ssl.SSLException;

/**
 * When {@code fsp get} and {@code fsp collect} tell the user to run the same command again: after an interruption
 * (the connection broke, the server went away, a read timed out) and when blocks stayed unverified, because the
 * journal keeps every verified block and a rerun fetches only the rest. Never where the same command must fail the same
 * way: a refused login or path (a permanent 5xx reply), a certificate that is not trusted, an address nothing
 * answers at, a destination that cannot take what comes (a directory in a file's way, another run writing there).
 */
final class Rerun {
    private Rerun() {
    }

    /** What to say when blocks stayed unverified, and after an interruption. */
    static final String HINT = "rerun the same command to resume";

    /** What to add after {@code failure}, or null when a rerun cannot help. */
    static String hint(Throwable failure) {
        return helps(failure) ? HINT : null;
    }

    static boolean helps(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SSLException || t instanceof CertificateException || t instanceof ConnectException
                    || t instanceof UnknownHostException || t instanceof NoRouteToHostException
                    || t instanceof IllegalArgumentException || t instanceof DestinationException) {
                return false;
            }
            if (t instanceof ControlException c && c.code() >= 500) {
                return false;
            }
        }
        return true;
    }
}

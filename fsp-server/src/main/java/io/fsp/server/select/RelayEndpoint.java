package io.fsp.server.select;

import io.fsp.tls.Fingerprint;
import java.net.InetSocketAddress;

/**
 * One relay of the static list: where it listens and the SHA-256 fingerprint of its certificate, which the
 * server pins (the relay prints it at start). Written {@code HOST:PORT=FINGERPRINT}; IPv6 as {@code [::1]:PORT=…}.
 */
public record RelayEndpoint(String host, int port, Fingerprint fingerprint) {
    public RelayEndpoint {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("relay port: " + port + " (expected: 1..65535)");
        }
    }

    public static RelayEndpoint parse(String text) {
        int eq = text.lastIndexOf('=');
        if (eq < 0) {
            throw new IllegalArgumentException("relay: '" + text + "' (expected: HOST:PORT=FINGERPRINT, the fingerprint"
                    + " the relay prints at start)");
        }
        String address = text.substring(0, eq);
        Fingerprint fp = Fingerprint.parse(text.substring(eq + 1).trim());
        int colon = address.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("relay: '" + address + "' (expected: HOST:PORT)");
        }
        String host = address.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("relay port: '" + address.substring(colon + 1) + "' (expected: a number)");
        }
        return new RelayEndpoint(host, port, fp);
    }

    public InetSocketAddress address() {
        return new InetSocketAddress(host, port);
    }

    /** {@code HOST:PORT} as announced to clients. */
    public String hostPort() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    @Override
    public String toString() {
        return hostPort() + "=" + fingerprint;
    }
}

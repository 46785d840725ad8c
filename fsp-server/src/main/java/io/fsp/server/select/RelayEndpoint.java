package io.fsp.server.select;

import io.fsp.net.HostPort;
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
        HostPort hostPort;
        try {
            hostPort = HostPort.parse(address);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("relay: " + e.getMessage());
        }
        return new RelayEndpoint(hostPort.host(), hostPort.port(), fp);
    }

    public InetSocketAddress address() {
        return new InetSocketAddress(host, port);
    }

    /** {@code HOST:PORT} as announced to clients. */
    public String hostPort() {
        return new HostPort(host, port).toString();
    }

    @Override
    public String toString() {
        return hostPort() + "=" + fingerprint;
    }
}

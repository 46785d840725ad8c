package io.fsp.server.select;

import io.fsp.net.HostPort;
import io.fsp.tls.Fingerprint;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * A {@code collect-relay} line: a relay FCOL may collect from beside the server's own {@code relay} lines, written
 * {@code IP:PORT=FINGERPRINT} (that relay with that certificate) or {@code IP:PORT} (there, with a certificate the
 * server trusts: a {@code relay}, {@code collect-relay} or {@code trust-relay} fingerprint). IPv6 as
 * {@code [::1]:PORT}. A literal address only: what FCOL connects to is never a name someone else resolves.
 */
public record CollectRelay(InetAddress address, int port, Optional<Fingerprint> fingerprint) {
    public CollectRelay {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("collect-relay port: " + port + " (expected: 1..65535)");
        }
    }

    public static CollectRelay parse(String text) {
        String s = text.strip();
        int eq = s.indexOf('=');
        Optional<Fingerprint> fp = eq < 0 ? Optional.empty() : Optional.of(Fingerprint.parse(s.substring(eq + 1).strip()));
        String address = eq < 0 ? s : s.substring(0, eq).strip();
        HostPort hostPort;
        try {
            hostPort = HostPort.parse(address);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("collect-relay: " + e.getMessage());
        }
        InetAddress ip = hostPort.literalAddress().orElseThrow(() -> new IllegalArgumentException("collect-relay: '"
                + hostPort.host() + "' (expected: a literal IP address; names are not resolved)"));
        return new CollectRelay(ip, hostPort.port(), fp);
    }

    @Override
    public String toString() {
        return HostPort.format(new InetSocketAddress(address, port)) + fingerprint.map(f -> "=" + f).orElse("");
    }
}

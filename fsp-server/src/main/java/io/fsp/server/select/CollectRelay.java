package io.fsp.server.select;

import io.fsp.tls.Fingerprint;
import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.UnknownHostException;
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
        int colon = address.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("collect-relay: '" + text + "' (expected: IP:PORT[=FINGERPRINT], IPv6 as"
                    + " [::1]:PORT)");
        }
        String host = address.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        InetAddress ip = literal(host);
        if (ip == null) {
            throw new IllegalArgumentException("collect-relay: '" + host + "' (expected: a literal IP address; names are"
                    + " not resolved)");
        }
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("collect-relay port: '" + address.substring(colon + 1) + "' (expected: a number)");
        }
        return new CollectRelay(ip, port, fp);
    }

    /** {@code host} as a literal IPv4 or IPv6 address (no scope), else null; nothing is resolved. */
    static InetAddress literal(String host) {
        if (!NetUtil.isValidIpV4Address(host) && !NetUtil.isValidIpV6Address(host) || host.indexOf('%') >= 0) {
            return null;
        }
        try {
            return InetAddress.getByAddress(NetUtil.createByteArrayFromIpAddressString(host));
        } catch (UnknownHostException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        String host = NetUtil.toAddressString(address);
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port + fingerprint.map(f -> "=" + f).orElse("");
    }
}

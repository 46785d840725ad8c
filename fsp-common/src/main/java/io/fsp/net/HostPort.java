package io.fsp.net;

import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * A host and port as configured, written {@code 127.0.0.1:2121}, {@code [::1]:0} or {@code localhost:21}: an
 * address to listen on (port 0: any free port) or a peer's. The host stays as written until
 * {@link #toSocketAddress()} resolves it. The one parser of {@code host:port} in FSP: configuration, options, FSPO
 * {@code meridian-entry}, {@code relay} and {@code collect-relay} lines, and the FSP extension's {@code RELAY} lines.
 * An IPv6 address is written in brackets; the port is one to five digits, 0..65535 ({@link #requirePeerPort()}: 1..).
 */
public record HostPort(String host, int port) {
    public HostPort {
        if (host.isEmpty()) {
            throw new IllegalArgumentException("host: empty (expected: an address such as 127.0.0.1 or [::1])");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 0..65535, 0 for any free port)");
        }
    }

    public static HostPort parse(String text) {
        String s = text.strip();
        String host;
        String port;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0 || close + 1 >= s.length() || s.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("'" + text + "' (expected: [IPv6]:PORT)");
            }
            host = s.substring(1, close);
            port = s.substring(close + 2);
        } else {
            int colon = s.lastIndexOf(':');
            if (colon < 0 || s.indexOf(':') != colon) {
                throw new IllegalArgumentException("'" + text + "' (expected: HOST:PORT, IPv6 as [::1]:PORT)");
            }
            host = s.substring(0, colon);
            port = s.substring(colon + 1);
        }
        // digits only: Integer.parseInt would also take "+80"
        int number = port.length() < 1 || port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9')
                ? -1 : Integer.parseInt(port);
        if (number < 0 || number > 65535) {
            throw new IllegalArgumentException("'" + text + "': port '" + port + "' (expected: 0..65535)");
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("'" + text + "': no host (expected: HOST:PORT, IPv6 as [::1]:PORT)");
        }
        return new HostPort(host, number);
    }

    /** This, if its port is one a peer can listen on (1..65535; 0 is for listening on any free port). */
    public HostPort requirePeerPort() {
        if (port == 0) {
            throw new IllegalArgumentException("'" + this + "': port 0 (expected: 1..65535)");
        }
        return this;
    }

    /** The host as a literal IPv4 or IPv6 address (no scope), if it is one; nothing is resolved. */
    public Optional<InetAddress> literalAddress() {
        return literal(host);
    }

    /** {@code host} as a literal IPv4 or IPv6 address (no scope, no brackets), if it is one; nothing is resolved. */
    public static Optional<InetAddress> literal(String host) {
        if (!NetUtil.isValidIpV4Address(host) && !NetUtil.isValidIpV6Address(host) || host.indexOf('%') >= 0) {
            return Optional.empty();
        }
        try {
            return Optional.of(InetAddress.getByAddress(NetUtil.createByteArrayFromIpAddressString(host)));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }

    /** The address, its host name resolved (unresolved if that fails). */
    public InetSocketAddress toSocketAddress() {
        return new InetSocketAddress(host, port);
    }

    /** {@code 127.0.0.1:40123} or {@code [::1]:40123}: the address as printed and as clients write it. */
    public static String format(InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        if (ip == null) {
            return new HostPort(address.getHostString(), address.getPort()).toString();
        }
        String host = NetUtil.toAddressString(ip);
        return (ip instanceof java.net.Inet6Address ? "[" + host + "]" : host) + ":" + address.getPort();
    }

    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}

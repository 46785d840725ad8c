package io.fsp.server;

import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/** A host and port to listen on, written {@code 127.0.0.1:2121}, {@code [::1]:0} or {@code localhost:21}. */
public record ListenAddress(String host, int port) {
    public ListenAddress {
        if (host.isEmpty()) {
            throw new IllegalArgumentException("listen host: empty (expected: an address such as 127.0.0.1 or [::1])");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("listen port: " + port + " (expected: 0..65535, 0 for any free port)");
        }
    }

    public static ListenAddress parse(String text) {
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
        try {
            return new ListenAddress(host, Integer.parseInt(port));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "': port '" + port + "' (expected: 0..65535)");
        }
    }

    public InetSocketAddress toSocketAddress() {
        return new InetSocketAddress(host, port);
    }

    /** {@code 127.0.0.1:40123} or {@code [::1]:40123}: the address as printed and as clients write it. */
    public static String format(InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        String host = NetUtil.toAddressString(ip);
        return (ip instanceof java.net.Inet6Address ? "[" + host + "]" : host) + ":" + address.getPort();
    }

    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}

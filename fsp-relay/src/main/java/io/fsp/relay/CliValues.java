package io.fsp.relay;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parsing of the command line's sizes ({@code 2G}), durations ({@code 30m}) and addresses ({@code host:port}). */
final class CliValues {
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgt]?)(i?b)?");
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

    private CliValues() {
    }

    /** {@code 1024}, {@code 64K}, {@code 512M}, {@code 2G}, {@code 1T} (binary multiples; {@code KiB}, {@code GB} too). */
    static long size(String text) {
        Matcher m = SIZE.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "': not a size (expected: e.g. 1048576, 64K, 512M, 2G)");
        }
        int shift = switch (m.group(2)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            case "t" -> 40;
            default -> 0;
        };
        try {
            long n = Long.parseLong(m.group(1));
            if (n > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "': too large");
        }
    }

    /** A rate in bytes per second: a {@link #size} with an optional {@code /s}, e.g. {@code 10M} or {@code 512k/s}. */
    static long rate(String text) {
        String t = text.trim();
        return size(t.toLowerCase(Locale.ROOT).endsWith("/s") ? t.substring(0, t.length() - 2) : t);
    }

    /** {@code 500ms}, {@code 90s}, {@code 30m}, {@code 1h}, {@code 7d}, or ISO-8601 {@code PT1H}. */
    static Duration duration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        Matcher m = DURATION.matcher(t);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            return Duration.parse(text.trim().toUpperCase(Locale.ROOT));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "': not a duration (expected: e.g. 90s, 30m, 1h, 7d)");
        }
    }

    /** {@code HOST:PORT} or {@code [IPv6]:PORT}; port 0 picks a free port. */
    static InetSocketAddress hostPort(String text) {
        String t = text.trim();
        int colon = t.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("'" + text + "': (expected: HOST:PORT, e.g. 127.0.0.1:7400)");
        }
        String host = t.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(t.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("'" + text + "': port " + t.substring(colon + 1)
                    + " (expected: 0..65535)");
        }
        return new InetSocketAddress(host, port);
    }

    static String format(InetSocketAddress a) {
        String host = a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
    }
}

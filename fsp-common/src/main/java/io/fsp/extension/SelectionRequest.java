package io.fsp.extension;

import io.fsp.meridian.wire.Constraint;
import io.fsp.net.HostPort;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a client asks with {@code FSPO near-sender=MS near-client=MS relays=N client-probe=PORT
 * [meridian-entry=HOST:PORT]}: relays within {@code nearSenderMs} of the server and {@code nearClientMs}
 * of the client, measured to the client's probe responder on {@code clientProbePort} at the IP address
 * of its control connection (never another host: a client cannot point overlay probes elsewhere). The one
 * parse of these keys ({@link #with}, the server's {@code 501} texts) and the one form the client sends
 * ({@link #words()}).
 *
 * @param entry the overlay entry node; empty: the server's configured {@code meridian-entry}
 */
public record SelectionRequest(double nearSenderMs, double nearClientMs, int relays, int clientProbePort,
                               Optional<InetSocketAddress> entry) {
    /** Keys FSPO hands to this record rather than to the stripe options. */
    public static final String[] KEYS = TransferOptions.Request.SELECTION_KEYS.toArray(String[]::new);
    /** Largest bound a query carries (docs/protocol.md §4.2). */
    public static final double MAX_MS = Constraint.MAX_RTT_MS;
    public static final int MAX_RELAYS = 64;
    public static final SelectionRequest NONE = new SelectionRequest(0, 0, 0, 0, Optional.empty());

    public SelectionRequest {
        bound("near-sender", nearSenderMs);
        bound("near-client", nearClientMs);
        if (relays < 0 || relays > MAX_RELAYS) {
            throw new IllegalArgumentException("relays: " + relays + " (expected: 1.." + MAX_RELAYS + ")");
        }
        if (clientProbePort < 0 || clientProbePort > 65535) {
            throw new IllegalArgumentException("client-probe: " + clientProbePort + " (expected: 1..65535)");
        }
    }

    /** Whether the client asked for relays by constraints (all of near-sender, near-client, relays, client-probe). */
    public boolean complete() {
        return relays > 0 && clientProbePort > 0 && nearSenderMs > 0 && nearClientMs > 0;
    }

    /** This with {@code key} set to {@code value}; throws {@link IllegalArgumentException} naming the problem. */
    public SelectionRequest with(String key, String value) {
        return switch (key.toLowerCase(Locale.ROOT)) {
            case "near-sender" -> new SelectionRequest(number(key, value), nearClientMs, relays, clientProbePort, entry);
            case "near-client" -> new SelectionRequest(nearSenderMs, number(key, value), relays, clientProbePort, entry);
            case "relays" -> new SelectionRequest(nearSenderMs, nearClientMs, atLeastOne(key, value), clientProbePort, entry);
            case "client-probe" -> new SelectionRequest(nearSenderMs, nearClientMs, relays, atLeastOne(key, value), entry);
            case "meridian-entry" -> new SelectionRequest(nearSenderMs, nearClientMs, relays, clientProbePort,
                    Optional.of(hostPort(value)));
            default -> throw new IllegalArgumentException("option: " + key + " (expected: one of " + String.join(", ", KEYS) + ")");
        };
    }

    /**
     * The keys set, as the client sends them in FSPO: {@code near-sender}, {@code near-client}, {@code relays},
     * {@code meridian-entry}, {@code client-probe}, each {@code key=value}.
     */
    public List<String> words() {
        List<String> words = new ArrayList<>();
        if (nearSenderMs > 0) {
            words.add("near-sender=" + format(nearSenderMs));
        }
        if (nearClientMs > 0) {
            words.add("near-client=" + format(nearClientMs));
        }
        if (relays > 0) {
            words.add("relays=" + relays);
        }
        entry.ifPresent(e -> words.add("meridian-entry=" + HostPort.format(e)));
        if (clientProbePort > 0) {
            words.add("client-probe=" + clientProbePort);
        }
        return words;
    }

    /** The request as {@code key=value} words, as FSPO answers it. */
    public String describe() {
        return "near-sender=" + format(nearSenderMs) + " near-client=" + format(nearClientMs) + " relays=" + relays
                + " client-probe=" + clientProbePort
                + entry.map(e -> " meridian-entry=" + e.getAddress().getHostAddress() + ":" + e.getPort()).orElse("");
    }

    private static String format(double ms) {
        return ms == Math.rint(ms) ? Long.toString((long) ms) : Double.toString(ms);
    }

    private static void bound(String key, double ms) {
        if (!(ms >= 0 && ms <= MAX_MS)) {
            throw new IllegalArgumentException(key + ": " + ms + " (expected: > 0 and <= " + (long) MAX_MS + " ms)");
        }
    }

    private static double number(String key, String value) {
        if (value.isEmpty() || value.length() > 12 || !value.matches("[0-9]+(\\.[0-9]+)?")) {
            throw new IllegalArgumentException(key + ": " + value + " (expected: milliseconds, e.g. 40 or 12.5)");
        }
        double ms = Double.parseDouble(value);
        if (ms <= 0 || ms > MAX_MS) {
            throw new IllegalArgumentException(key + ": " + value + " (expected: > 0 and <= " + (long) MAX_MS + " ms)");
        }
        return ms;
    }

    private static int atLeastOne(String key, String value) {
        if (value.isEmpty() || value.length() > 5 || !value.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException(key + ": " + value + " (expected: a number)");
        }
        int n = Integer.parseInt(value);
        int max = key.equalsIgnoreCase("relays") ? MAX_RELAYS : 65535;
        if (n < 1 || n > max) {
            throw new IllegalArgumentException(key + ": " + value + " (expected: 1.." + max + ")");
        }
        return n;
    }

    /** {@code IP:PORT} or {@code [IPv6]:PORT}, a literal address only: the server resolves no names for clients. */
    private static InetSocketAddress hostPort(String value) {
        IllegalArgumentException malformed = new IllegalArgumentException("meridian-entry: " + value + " (expected: IP:PORT)");
        if (value.length() > 64) {
            throw malformed;
        }
        HostPort hostPort;
        try {
            hostPort = HostPort.parse(value);
        } catch (IllegalArgumentException e) {
            throw malformed;
        }
        InetAddress ip = hostPort.literalAddress().orElseThrow(() -> new IllegalArgumentException("meridian-entry: "
                + value + " (expected: a literal IP address)"));
        return new InetSocketAddress(ip, atLeastOne("meridian-entry port", Integer.toString(hostPort.port())));
    }
}

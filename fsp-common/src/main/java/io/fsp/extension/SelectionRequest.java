package io.fsp.extension;

import io.fsp.meridian.wire.Constraint;
import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * What a client asks with {@code FSPO near-sender=MS near-client=MS relays=N client-probe=PORT
 * [meridian-entry=HOST:PORT]}: relays within {@code nearSenderMs} of the server and {@code nearClientMs}
 * of the client, measured to the client's probe responder on {@code clientProbePort} at the IP address
 * of its control connection (never another host: a client cannot point overlay probes elsewhere). Its keys
 * ({@link FspOption#NEAR_SENDER} …) parse and write the values; this record holds what the server acts on.
 *
 * @param entry the overlay entry node; empty: the server's configured {@code meridian-entry}
 */
public record SelectionRequest(double nearSenderMs, double nearClientMs, int relays, int clientProbePort,
                               Optional<InetSocketAddress> entry) {
    /** Largest bound a query carries (docs/protocol.md §4.2). */
    public static final double MAX_MS = Constraint.MAX_RTT_MS;
    public static final int MAX_RELAYS = FspOption.MAX_RELAYS;
    public static final SelectionRequest NONE = new SelectionRequest(0, 0, 0, 0, Optional.empty());

    public SelectionRequest {
        bound(FspOption.NEAR_SENDER, nearSenderMs);
        bound(FspOption.NEAR_CLIENT, nearClientMs);
        if (relays < 0 || relays > MAX_RELAYS) {
            throw new IllegalArgumentException(FspOption.RELAYS + ": " + relays + " (expected: 1.." + MAX_RELAYS + ")");
        }
        if (clientProbePort < 0 || clientProbePort > 65535) {
            throw new IllegalArgumentException(FspOption.CLIENT_PROBE + ": " + clientProbePort + " (expected: 1..65535)");
        }
    }

    /** Whether the client asked for relays by constraints (all of near-sender, near-client, relays, client-probe). */
    public boolean complete() {
        return relays > 0 && clientProbePort > 0 && nearSenderMs > 0 && nearClientMs > 0;
    }

    /** This with the selection options of {@code options} set, in order; the others it holds are left out. */
    public SelectionRequest with(FspOptions options) {
        SelectionRequest r = this;
        for (FspOptions.Value<?> v : options.values()) {
            r = r.with(v);
        }
        return r;
    }

    private SelectionRequest with(FspOptions.Value<?> v) {
        FspOption<?> o = v.option();
        Object value = v.value();
        if (o == FspOption.NEAR_SENDER) {
            return new SelectionRequest((Double) value, nearClientMs, relays, clientProbePort, entry);
        } else if (o == FspOption.NEAR_CLIENT) {
            return new SelectionRequest(nearSenderMs, (Double) value, relays, clientProbePort, entry);
        } else if (o == FspOption.RELAYS) {
            return new SelectionRequest(nearSenderMs, nearClientMs, (Integer) value, clientProbePort, entry);
        } else if (o == FspOption.CLIENT_PROBE) {
            return new SelectionRequest(nearSenderMs, nearClientMs, relays, (Integer) value, entry);
        } else if (o == FspOption.MERIDIAN_ENTRY) {
            return new SelectionRequest(nearSenderMs, nearClientMs, relays, clientProbePort,
                    Optional.of((InetSocketAddress) value));
        }
        return this;
    }

    /** The keys set, as the client sends them in FSPO: near-sender, near-client, relays, meridian-entry, client-probe. */
    public FspOptions options() {
        FspOptions o = FspOptions.NONE;
        if (nearSenderMs > 0) {
            o = o.with(FspOption.NEAR_SENDER, nearSenderMs);
        }
        if (nearClientMs > 0) {
            o = o.with(FspOption.NEAR_CLIENT, nearClientMs);
        }
        if (relays > 0) {
            o = o.with(FspOption.RELAYS, relays);
        }
        if (entry.isPresent()) {
            o = o.with(FspOption.MERIDIAN_ENTRY, entry.get());
        }
        return clientProbePort > 0 ? o.with(FspOption.CLIENT_PROBE, clientProbePort) : o;
    }

    /** The request as {@code key=value} words, as FSPO answers it: every key, unset ones as 0. */
    public String describe() {
        return FspOption.NEAR_SENDER.pair(nearSenderMs) + " " + FspOption.NEAR_CLIENT.pair(nearClientMs) + " "
                + FspOption.RELAYS.pair(relays) + " " + FspOption.CLIENT_PROBE.pair(clientProbePort)
                + entry.map(e -> " " + FspOption.MERIDIAN_ENTRY.name() + "=" + e.getAddress().getHostAddress() + ":"
                        + e.getPort()).orElse("");
    }

    private static void bound(FspOption<Double> option, double ms) {
        if (!(ms >= 0 && ms <= MAX_MS)) {
            throw new IllegalArgumentException(option.name() + ": " + ms + " (expected: > 0 and <= " + (long) MAX_MS + " ms)");
        }
    }
}

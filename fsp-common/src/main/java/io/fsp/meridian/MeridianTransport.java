package io.fsp.meridian;

import io.fsp.meridian.wire.MeridianMessage;
import java.net.InetSocketAddress;

/**
 * How a node sends a message: a UDP socket in production, the simulator's latency matrix in tests.
 * Sending never blocks and may silently lose the message, as a datagram would.
 */
public interface MeridianTransport {
    void send(InetSocketAddress to, MeridianMessage message);
}

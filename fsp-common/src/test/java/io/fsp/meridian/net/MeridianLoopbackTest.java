package io.fsp.meridian.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.meridian.MeridianConfig;
import io.fsp.meridian.MultiConstraintQuery;
import io.fsp.meridian.QueryResult;
import io.fsp.meridian.wire.Constraint;
import io.fsp.meridian.wire.QueryHit;
import io.fsp.meridian.wire.RingEntry;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real node on 127.0.0.1 over UDP and a bad peer. (Nodes at emulated wide-area distances, over IPv4 and IPv6
 * loopback, and the queries they answer: fsp-testkit's {@code MeridianOverEmulatedLatencyTest}.)
 */
@Timeout(60)
class MeridianLoopbackTest {
    private static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress("127.0.0.1", 0);

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    @Test
    void dropsMalformedDatagramsAndKeepsServing() throws Exception {
        MeridianService node = MeridianService.start(ANY_LOOPBACK, List.of(), MeridianConfig.defaults());
        open.add(node);
        try (DatagramSocket socket = new DatagramSocket(ANY_LOOPBACK)) {
            socket.send(new DatagramPacket(new byte[] {0x4d, 0x52, 1, 42}, 4, node.address()));
            byte[] oversized = new byte[5000];
            socket.send(new DatagramPacket(oversized, oversized.length, node.address()));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (node.rejected() < 2) {
            assertTrue(System.nanoTime() < deadline, "rejected: " + node.rejected() + " (expected: 2)");
            Thread.sleep(20);
        }
        MeridianService asker = MeridianService.client(ANY_LOOPBACK, MeridianConfig.defaults());
        open.add(asker);
        assertEquals(List.of(), asker.rings(node.address()).get(5, TimeUnit.SECONDS));
    }
}

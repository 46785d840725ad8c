package io.fsp.server.ftp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PassivePortsTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private static int port(ServerSocketChannel ch) throws Exception {
        return ((InetSocketAddress) ch.getLocalAddress()).getPort();
    }

    /**
     * Without a range, ports come from above the system's ephemeral range, so the TIME_WAIT every file sent leaves
     * behind never takes the ports other programs on the host connect and bind with; and each from a random place in
     * it, so that the next PASV's port cannot be guessed from the last one's.
     */
    @Test
    void withoutARangePortsComeFromAboveTheEphemeralRangeUnguessably() throws Exception {
        PortRange expected = PassivePorts.defaultRange(PassivePorts.ephemeral());
        PassivePorts ports = new PassivePorts(Optional.empty());
        List<ServerSocketChannel> bound = new ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                bound.add(ports.bind(LOOPBACK));
            }
            int previous = -1;
            int successive = 0;
            for (ServerSocketChannel ch : bound) {
                int p = port(ch);
                assertTrue(p >= expected.low() && p <= expected.high(), p + " in " + expected);
                assertNotEquals(previous, p);
                successive += p == previous + 1 ? 1 : 0;
                previous = p;
            }
            assertTrue(successive < 5, successive + " of 19 ports followed the one before");
        } finally {
            for (ServerSocketChannel ch : bound) {
                ch.close();
            }
        }
    }

    @Test
    void theDefaultRangeLiesAboveTheEphemeralOneWhereThereIsRoom() {
        assertEquals(new PortRange(61000, 65535), PassivePorts.defaultRange(new PortRange(32768, 60999)), "Linux's defaults");
        PortRange wide = new PortRange(1024, 65535);
        assertEquals(wide, PassivePorts.defaultRange(wide), "nothing above it: the ephemeral range itself");
        PortRange high = new PortRange(32768, 65000);
        assertEquals(high, PassivePorts.defaultRange(high), "535 ports above it are too few");
        assertEquals(new PortRange(64512, 65535), PassivePorts.defaultRange(new PortRange(32768, 64511)),
                "exactly " + PassivePorts.MIN_DEFAULT_PORTS);
    }

    /** A port in use is skipped; the next one serves. */
    @Test
    void aPortInUseIsSkipped() throws Exception {
        for (int attempt = 0; ; attempt++) {
            try (ServerSocketChannel taken = ServerSocketChannel.open().bind(new InetSocketAddress(LOOPBACK, 0))) {
                int p = port(taken);
                if (!free(p + 1) && attempt < 50) {
                    continue; // another program holds the port after it: the range would have none free
                }
                PassivePorts ports = new PassivePorts(Optional.of(new PortRange(p, p + 1)));
                try (ServerSocketChannel a = ports.bind(LOOPBACK)) {
                    assertEquals(p + 1, port(a), "the free one of the two");
                }
                return;
            }
        }
    }

    private static boolean free(int port) {
        try (ServerSocketChannel probe = ServerSocketChannel.open().bind(new InetSocketAddress(LOOPBACK, port))) {
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}

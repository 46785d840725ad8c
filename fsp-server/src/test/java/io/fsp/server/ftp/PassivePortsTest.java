package io.fsp.server.ftp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.server.config.PortRange;
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

    /** Without a range, ports come in turn from the system's ephemeral range, never from the kernel's own search. */
    @Test
    void withoutARangePortsComeInTurnFromTheEphemeralRange() throws Exception {
        PortRange ephemeral = PassivePorts.ephemeral();
        PassivePorts ports = new PassivePorts(Optional.empty());
        List<ServerSocketChannel> bound = new ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                bound.add(ports.bind(LOOPBACK));
            }
            int previous = -1;
            for (ServerSocketChannel ch : bound) {
                int p = port(ch);
                assertTrue(p >= ephemeral.low() && p <= ephemeral.high(), p + " in " + ephemeral);
                assertNotEquals(previous, p);
                previous = p;
            }
        } finally {
            for (ServerSocketChannel ch : bound) {
                ch.close();
            }
        }
    }

    /** A port in use is skipped; the next one serves. */
    @Test
    void aPortInUseIsSkipped() throws Exception {
        try (ServerSocketChannel taken = ServerSocketChannel.open().bind(new InetSocketAddress(LOOPBACK, 0))) {
            int p = port(taken);
            PassivePorts ports = new PassivePorts(Optional.of(new PortRange(p, p + 1)));
            try (ServerSocketChannel a = ports.bind(LOOPBACK)) {
                assertEquals(p + 1, port(a), "the free one of the two");
            }
        }
    }
}

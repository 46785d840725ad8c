package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fsp.client.control.ControlChannel;
import io.fsp.it.harness.StripeRig;
import io.fsp.tls.PinnedTrustManager;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client's data connection leaves its receive buffer to the kernel: a size set by the application turns off
 * Linux's receive autotuning and caps a stream on a long link at that size per round trip.
 */
class DataSocketBufferIT {
    @TempDir
    Path dir;

    @Test
    void dataConnectionKeepsTheKernelsAutotunedReceiveBuffer() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 16L << 20);
             ControlChannel c = ControlChannel.connect("127.0.0.1", rig.port(),
                     PinnedTrustManager.of(Set.of(rig.server().fingerprint())), Duration.ofSeconds(10))) {
            c.login(StripeRig.USER, StripeRig.PASSWORD.toCharArray(), false);
            int port = c.epsv();
            try (ServerSocket listener = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
                 Socket untouched = SocketChannel.open().socket();
                 Socket data = c.openData(port, Duration.ofSeconds(10))) {
                // a loopback connection as the kernel sets it up, for the size autotuning starts from
                untouched.connect(new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort()), 10_000);
                assertEquals(untouched.getReceiveBufferSize(), data.getReceiveBufferSize(),
                        "the data connection's SO_RCVBUF was set (autotuning off)");
            }
        }
    }
}

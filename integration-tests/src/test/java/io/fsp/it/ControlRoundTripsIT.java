package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.collect.CollectOptions;
import io.fsp.client.collect.CollectSummary;
import io.fsp.client.collect.Collector;
import io.fsp.client.verify.VerificationMode;
import io.fsp.extension.FspOptions;
import io.fsp.it.harness.StripeRig;
import io.fsp.it.harness.TreeDigests;
import io.fsp.tls.PinnedTrustManager;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * How often {@code fsp get} waits for the server on its control connection, each wait a round trip (100 ms on a
 * long link): the connection runs through a forwarder that delays what the server sends by {@link #DELAY_MS} and
 * counts the turns, each time the client speaks after the server's bytes reached it. The commands of a retrieve
 * need few: AUTH TLS with the connection's start, the TLS handshake, every command up to FRET at once, QUIT.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ControlRoundTripsIT {
    /** Longer than the client's pause between the parts of one burst, even on a loaded machine. */
    private static final long DELAY_MS = 300;

    @TempDir
    Path dir;

    @Test
    void aDirectGetWaitsForTheServerOnlyAFewTimes() throws Exception {
        try (StripeRig rig = StripeRig.start(dir.resolve("rig"), 64L << 20, new io.fsp.testkit.relay.Fault[0]);
             TurnCounter forwarder = new TurnCounter(rig.port())) {
            TreeDigests.random(rig.root().resolve("file.bin"), 3_000_000, 7);
            Path dest = dir.resolve("file.bin");
            CollectOptions options = new CollectOptions("127.0.0.1", forwarder.port(), StripeRig.USER,
                    StripeRig.PASSWORD.toCharArray(), "round-trips", "/file.bin", dest,
                    PinnedTrustManager.of(Set.of(rig.server().fingerprint())), FspOptions.NONE, true, 2,
                    VerificationMode.FIVER, Duration.ofSeconds(10), Duration.ofSeconds(10));
            CollectSummary summary = new Collector(options).run();
            assertTrue(summary.complete(), summary::toText);
            assertEquals(TreeDigests.sha256(rig.root().resolve("file.bin")), TreeDigests.sha256(dest));
            forwarder.awaitClosed();
            // Greeting, AUTH TLS, handshake, login, PBSZ, PROT, FSPO, EPSV, FRET and QUIT one after the other: 10 or more.
            int turns = forwarder.turns();
            assertTrue(turns <= 5, "the client waited for the server " + turns + " times (expected: at most 5)");
        }
    }

    /** Forwards one connection to the server, the server's side {@link #DELAY_MS} late, and counts the client's turns. */
    private static final class TurnCounter implements AutoCloseable {
        private final ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        private final Thread acceptor;
        private Thread back;
        private int turns;
        /** The server's bytes reached the client since it last sent. */
        private boolean answered;

        TurnCounter(int serverPort) throws IOException {
            acceptor = new Thread(() -> forward(serverPort), "turn-counter");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return listener.getLocalPort();
        }

        synchronized int turns() {
            return turns;
        }

        void awaitClosed() throws InterruptedException {
            acceptor.join(30_000);
            if (back != null) {
                back.join(30_000);
            }
        }

        private void forward(int serverPort) {
            try (Socket client = listener.accept();
                 Socket server = new Socket()) {
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), serverPort));
                server.setTcpNoDelay(true);
                client.setTcpNoDelay(true);
                back = new Thread(() -> pump(server, client, true), "turn-counter-back");
                back.setDaemon(true);
                back.start();
                pump(client, server, false);
                back.join(30_000);
            } catch (IOException | InterruptedException e) {
                // the connection ended
            }
        }

        private void pump(Socket from, Socket to, boolean fromServer) {
            byte[] buffer = new byte[64 * 1024];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                for (int n; (n = in.read(buffer)) > 0; ) {
                    if (fromServer) {
                        Thread.sleep(DELAY_MS);
                    } else {
                        synchronized (this) {
                            if (answered) {
                                turns++;
                                answered = false;
                            }
                        }
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                    if (fromServer) {
                        synchronized (this) {
                            answered = true;
                        }
                    }
                }
                to.shutdownOutput();
            } catch (IOException | InterruptedException e) {
                // the connection ended
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }
    }
}

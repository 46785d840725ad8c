package io.fsp.relay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayConnectionConfig;
import io.fsp.relaylink.RelayRefusedException;
import io.fsp.relaylink.TokenRefusedException;
import io.fsp.relay.net.ConnectionPolicy;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.fsp.relaylink.wire.RelayMessage;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TokenKey;
import io.fsp.token.TokenScope;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Peers without credentials cannot exhaust a relay's connections: a cap per address on connections not yet
 * authenticated, a deadline to authenticate, and a limit on refused requests. Each test checks that a
 * well-behaved server and client are still served.
 */
@Timeout(60)
class RelayAdmissionTest {
    private static final byte[] BLOCK = {4, 2};
    @TempDir
    Path store;
    private RelayHarness h;

    @AfterEach
    void stop() {
        if (h != null) {
            h.close();
        }
    }

    private RelayHarness start(ConnectionPolicy policy) throws Exception {
        return start(policy, ConnectionHandlers.NONE);
    }

    private RelayHarness start(ConnectionPolicy policy, ConnectionHandlers handlers) throws Exception {
        h = new RelayHarness(store, 1 << 20, 1 << 20, handlers,
                RelayConnectionConfig.DEFAULT.withRequestTimeout(Duration.ofSeconds(5)), policy, false);
        return h;
    }

    /** Adds the relay's side of each connection it accepts to {@code accepted}. */
    private static ConnectionHandlers recording(List<Channel> accepted) {
        return store -> new ChannelInboundHandlerAdapter() {
            @Override
            public void handlerAdded(ChannelHandlerContext ctx) {
                accepted.add(ctx.channel());
            }
        };
    }

    /** A transfer with one block, and a client that holds its token: the well-behaved peers. */
    private RelayHarness.Opened placeOneBlock(RelayConnection server) throws Exception {
        RelayHarness.Opened t = h.open(server, 1024);
        server.putBlock(t.id(), 0, Unpooled.wrappedBuffer(BLOCK)).get(5, TimeUnit.SECONDS);
        return t;
    }

    private static void assertServed(RelayConnection server, RelayConnection client, RelayHarness.Opened t)
            throws Exception {
        ByteBuf got = client.getBlock(t.id(), 0).get(5, TimeUnit.SECONDS);
        try {
            assertArrayEquals(BLOCK, ByteBufUtil.getBytes(got));
        } finally {
            got.release();
        }
        server.putBlock(t.id(), 1, Unpooled.wrappedBuffer(BLOCK)).get(5, TimeUnit.SECONDS);
    }

    private void awaitConnections(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (h.relay.connections() != n && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(n, h.relay.connections());
    }

    @Test
    void unauthenticatedConnectionsBeyondThePerAddressCapAreClosedAtOnce() throws Exception {
        start(RelayHarness.POLICY.withMaxUnauthenticatedPerAddress(4).withAuthTimeout(Duration.ofSeconds(30)));
        InetAddress attacker = InetAddress.getByName("127.0.0.2");
        try (RelayConnection server = h.server(); RelayConnection client = h.client()) {
            RelayHarness.Opened t = placeOneBlock(server);
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            List<SSLSocket> lurkers = new ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    lurkers.add(h.rawTls(attacker)); // TLS done, then silence: not authenticated
                }
                awaitConnections(6);
                for (int i = 0; i < 3; i++) {
                    try (Socket fifth = new Socket(h.relay.address().getAddress(), h.relay.address().getPort(), attacker,
                            0)) {
                        fifth.setSoTimeout(5000);
                        RelayHarness.assertClosed(fifth.getInputStream());
                    }
                }
                awaitConnections(6);
                String metrics = metrics();
                assertTrue(metrics.contains(
                        "\nfsp_relay_connections_refused_total{limit=\"max-unauthenticated-per-address\"} 3.0\n"), metrics);
                // Peers from other addresses, and authenticated ones, are not affected.
                assertServed(server, client, t);
                try (RelayConnection another = h.client()) {
                    another.authorize(t.token()).get(5, TimeUnit.SECONDS);
                }
                // A lurker that leaves frees its slot for its address.
                lurkers.remove(0).close();
                awaitConnections(5);
                lurkers.add(h.rawTls(attacker));
                awaitConnections(6);
            } finally {
                for (SSLSocket s : lurkers) {
                    s.close();
                }
            }
        }
    }

    @Test
    void silentConnectionsAreClosedAtTheAuthDeadlineButAuthenticatedOnesStay() throws Exception {
        Duration authTimeout = Duration.ofMillis(700);
        List<Channel> accepted = new CopyOnWriteArrayList<>();
        start(RelayHarness.POLICY.withAuthTimeout(authTimeout), recording(accepted));
        try (RelayConnection server = h.server(); RelayConnection client = h.client()) {
            RelayHarness.Opened t = placeOneBlock(server);
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            long start = System.nanoTime(); // the authenticated peers' deadlines are due before start + authTimeout
            try (SSLSocket afterHello = h.rawTls();
                 SSLSocket handshakeOnly = h.rawTls();
                 Socket tcpOnly = new Socket(h.relay.address().getAddress(), h.relay.address().getPort())) {
                OutputStream out = afterHello.getOutputStream();
                out.write(new byte[] {0x01, 0, 0, 0, 6, 0, 0, 0, 1, 0, RelayMessage.VERSION}); // HELLO, then nothing
                out.flush();
                DataInputStream in = new DataInputStream(afterHello.getInputStream());
                assertEquals(0x02, in.readUnsignedByte()); // WELCOME
                in.skipNBytes(in.readInt());
                assertEquals(RelayErrorCode.AUTH_TIMEOUT, RelayHarness.readError(in));
                RelayHarness.assertClosed(in);
                RelayHarness.assertClosed(handshakeOnly.getInputStream());
                tcpOnly.setSoTimeout(5000);
                RelayHarness.assertClosed(tcpOnly.getInputStream()); // well before TLS's own 10 s handshake timeout
            }
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(8), "closed at the deadline");
            // A connection's deadline runs on its event loop, in deadline order with the loop's other timers: once
            // a timer due later has run on every connection's loop, the authenticated peers' deadlines have too.
            long after = Math.max(0, start + authTimeout.toNanos() - System.nanoTime());
            for (Channel c : accepted) {
                c.eventLoop().schedule(() -> { }, after, TimeUnit.NANOSECONDS).get(5, TimeUnit.SECONDS);
            }
            assertServed(server, client, t);
        }
    }

    @Test
    void repeatedRefusalsCloseAConnectionWithoutATrustedCertificate() throws Exception {
        start(RelayHarness.POLICY.withMaxRefusals(3));
        try (RelayConnection server = h.server(); RelayConnection client = h.client();
             RelayConnection prober = h.client()) {
            RelayHarness.Opened t = placeOneBlock(server);
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            for (int i = 0; i < 3; i++) {
                CapabilityToken forged = CapabilityToken.issue(TokenKey.random(), t.id(),
                        h.clock.instant().plusSeconds(60), TokenScope.ALL);
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> prober.authorize(forged).get(5, TimeUnit.SECONDS));
                assertInstanceOf(TokenRefusedException.class, e.getCause());
            }
            prober.closeFuture().get(5, TimeUnit.SECONDS);
            // A trusted server's refusals are its own affair: its connection stays.
            for (int i = 0; i < 4; i++) {
                ExecutionException e = assertThrows(ExecutionException.class, () -> server.putBlock(TransferId.random(),
                        0, Unpooled.wrappedBuffer(BLOCK)).get(5, TimeUnit.SECONDS));
                assertEquals(RelayErrorCode.UNKNOWN_TRANSFER, ((RelayRefusedException) e.getCause()).code());
            }
            assertTrue(server.isOpen());
            assertServed(server, client, t);
            String metrics = metrics();
            assertTrue(metrics.contains("\nfsp_relay_errors_total{code=\"TOKEN_FORGED\"} 3.0\n"), metrics);
            assertTrue(metrics.contains("\nfsp_relay_errors_total{code=\"TOO_MANY_REFUSALS\"} 1.0\n"), metrics);
            assertTrue(metrics.contains("\nfsp_relay_errors_total{code=\"UNKNOWN_TRANSFER\"} 4.0\n"), metrics);
        }
    }

    /** Authorizes {@code token} on a new client connection, which the caller closes. */
    private RelayConnection authorized(CapabilityToken token) throws Exception {
        RelayConnection c = h.client();
        c.authorize(token).get(5, TimeUnit.SECONDS);
        return c;
    }

    /** The next AUTHORIZE of {@code token} is refused TOO_MANY_CONNECTIONS and its connection closed. */
    private void assertRefusedForConnections(CapabilityToken token) throws Exception {
        try (RelayConnection c = h.client()) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> c.authorize(token).get(5, TimeUnit.SECONDS));
            assertEquals(RelayErrorCode.TOO_MANY_CONNECTIONS, ((RelayRefusedException) e.getCause()).code(),
                    e.getCause().toString());
            c.closeFuture().get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void oneTokenHoldsAtMostItsShareOfConnections() throws Exception {
        start(RelayHarness.POLICY.withClientConnections(64, 4, 64, 3));
        List<RelayConnection> held = new ArrayList<>();
        try (RelayConnection server = h.server()) {
            RelayHarness.Opened t = placeOneBlock(server);
            RelayHarness.Opened other = placeOneBlock(server);
            for (int i = 0; i < 3; i++) {
                held.add(authorized(t.token()));
            }
            assertRefusedForConnections(t.token());
            assertTrue(metrics().contains("\nfsp_relay_connections_refused_total{limit=\"max-connections-per-transfer\"} 1.0\n"));
            // Another transfer's client is not affected, and one of the three leaving frees its place.
            try (RelayConnection client = authorized(other.token())) {
                assertServed(server, client, other);
            }
            held.remove(0).close();
            awaitConnections(3); // the server and the two left
            held.add(authorized(t.token()));
            assertServed(server, held.get(2), t);
        } finally {
            for (RelayConnection c : held) {
                c.close();
            }
        }
    }

    @Test
    void oneAddressHoldsAtMostItsShareOfClientConnections() throws Exception {
        start(RelayHarness.POLICY.withClientConnections(64, 4, 2, 32));
        try (RelayConnection server = h.server()) {
            RelayHarness.Opened a = placeOneBlock(server);
            RelayHarness.Opened b = placeOneBlock(server);
            RelayHarness.Opened c = placeOneBlock(server);
            try (RelayConnection first = authorized(a.token()); RelayConnection second = authorized(b.token())) {
                assertRefusedForConnections(c.token()); // a third transfer's token, from the same address
                assertTrue(metrics().contains(
                        "\nfsp_relay_connections_refused_total{limit=\"max-client-connections-per-address\"} 1.0\n"));
                // More tokens on a connection already counted are not more connections.
                first.authorize(c.token()).get(5, TimeUnit.SECONDS);
                assertServed(server, first, c);
            }
        }
    }

    @Test
    void clientsHoldingTokensLeaveTheServersTheirConnections() throws Exception {
        // 8 connections, 3 kept for servers: five clients with tokens, then a sixth is refused; servers still join.
        start(RelayHarness.POLICY.withClientConnections(8, 3, 64, 64));
        List<RelayConnection> held = new ArrayList<>();
        try (RelayConnection server = h.server()) {
            RelayHarness.Opened t = placeOneBlock(server);
            for (int i = 0; i < 5; i++) {
                held.add(authorized(t.token()));
            }
            assertRefusedForConnections(t.token());
            assertTrue(metrics().contains("\nfsp_relay_connections_refused_total{limit=\"server-connections\"} 1.0\n"));
            try (RelayConnection secondServer = h.server()) {
                placeOneBlock(secondServer); // opens a transfer and pushes a block over the 7th connection
            }
            assertServed(server, held.get(0), t);
        } finally {
            for (RelayConnection c : held) {
                c.close();
            }
        }
    }

    /** What a scrape of the relay's metrics would show. */
    private String metrics() throws java.io.IOException {
        java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
        io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter.create().write(text,
                h.relay.metrics().registry().scrape());
        return text.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void aClientRefusedFewerTimesThanTheLimitGoesOn() throws Exception {
        start(RelayHarness.POLICY.withMaxRefusals(3));
        try (RelayConnection server = h.server(); RelayConnection client = h.client()) {
            RelayHarness.Opened t = placeOneBlock(server);
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            for (int i = 0; i < 2; i++) {
                CompletableFuture<ByteBuf> foreign = client.getBlock(TransferId.random(), 0);
                assertThrows(ExecutionException.class, () -> foreign.get(5, TimeUnit.SECONDS));
            }
            assertServed(server, client, t);
            assertTrue(client.isOpen());
        }
    }
}

package io.fsp.testkit.relay;

import static io.fsp.relay.RelayHarness.block;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.relay.RelayHarness;
import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayConnectionConfig;
import io.fsp.relaylink.RelayException;
import io.fsp.relaylink.wire.ClearLink;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.fsp.relaylink.wire.RelayFrameDecoder;
import io.fsp.relaylink.wire.RelayFrameEncoder;
import io.fsp.relaylink.wire.RelayLimits;
import io.fsp.relaylink.wire.RelayMessage;
import io.fsp.relaylink.wire.RelayRole;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.tls.SslContexts;
import io.fsp.testkit.net.WireTap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clear links (docs/protocol.md §3.7) with a real relay and real sockets, through a tap that records (and may change)
 * every byte between the peers and the relay: blocks cross without a second encryption, token keys, tokens and link
 * secrets never appear on the wire, a frame changed on the wire is refused, and a ticket opens one link that carries
 * blocks only.
 */
@Timeout(60)
class ClearLinkTest {
    @TempDir
    Path store;
    private RelayHarness h;
    private WireTap tap;

    @AfterEach
    void stop() throws IOException {
        if (tap != null) {
            tap.close();
        }
        if (h != null) {
            h.close();
        }
    }

    /** A server puts {@code data} as block 0 of a new transfer, a client fetches it: both through the tap. */
    private RelayHarness.Opened roundTrip(RelayConnectionConfig config, byte[] data) throws Exception {
        try (RelayConnection server = through(tap, true, config); RelayConnection client = through(tap, false, config)) {
            RelayHarness.Opened t = h.open(server);
            server.putBlock(t.id(), 0, Unpooled.wrappedBuffer(data)).get(5, TimeUnit.SECONDS);
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            ByteBuf got = client.getBlock(t.id(), 0).get(5, TimeUnit.SECONDS);
            assertArrayEquals(data, ByteBufUtil.getBytes(got));
            got.release();
            return t;
        }
    }

    private RelayConnection through(WireTap tap, boolean server, RelayConnectionConfig config) throws Exception {
        return RelayConnection.connect(tap.address(), SslContexts.client(PinnedTrustManager.of(
                Set.of(RelayHarness.RELAY.fingerprint())), server ? Optional.of(RelayHarness.SERVER) : Optional.empty()),
                h.group, config).get(10, TimeUnit.SECONDS);
    }

    @Test
    void blocksCrossAClearLinkWhileKeysAndTokensStayUnderTls() throws Exception {
        h = new RelayHarness(store, 64 << 20, 64 << 20);
        tap = new WireTap(h.relay.address(), WireTap.Change.NONE);
        byte[] data = block(256 << 10, 1);
        RelayHarness.Opened t = roundTrip(RelayConnectionConfig.DEFAULT, data);
        tap.awaitClosed();
        assertEquals(List.of(true, false, true, false), tap.connections().stream().map(WireTap.Connection::tls).toList(),
                "the server's TLS connection and link, the client's");
        byte[] window = java.util.Arrays.copyOfRange(data, 1000, 1064);
        assertEquals(2, tap.streamsContaining(window), "the block crossed in clear, to the relay and from it");
        assertEquals(0, tap.streamsContaining(t.key().bytes()), "the token key");
        assertEquals(0, tap.streamsContaining(t.token().encode()), "the token");
        assertEquals(0, tap.streamsContaining(java.util.Arrays.copyOf(t.token().encode(), 16)), "any part of the token");
    }

    /**
     * A client that connects with its token says HELLO, AUTHORIZE and BIND_REQUEST at once: its connection is ready to
     * fetch over its clear link when the future completes, and a token the relay refuses fails it, with no link.
     */
    @Test
    void aClientConnectsAuthorizesAndBindsInOneGo() throws Exception {
        h = new RelayHarness(store, 64 << 20, 64 << 20);
        tap = new WireTap(h.relay.address(), WireTap.Change.NONE);
        byte[] data = block(256 << 10, 7);
        io.netty.handler.ssl.SslContext ssl = SslContexts.client(PinnedTrustManager.of(
                Set.of(RelayHarness.RELAY.fingerprint())), Optional.empty());
        RelayHarness.Opened t;
        try (RelayConnection server = through(tap, true, RelayConnectionConfig.DEFAULT)) {
            t = h.open(server);
            server.putBlock(t.id(), 0, Unpooled.wrappedBuffer(data)).get(5, TimeUnit.SECONDS);
            try (RelayConnection client = RelayConnection.connect(tap.address(), ssl, h.group, RelayConnectionConfig.DEFAULT,
                    t.token()).get(10, TimeUnit.SECONDS)) {
                ByteBuf got = client.getBlock(t.id(), 0).get(5, TimeUnit.SECONDS); // no AUTHORIZE of its own
                assertArrayEquals(data, ByteBufUtil.getBytes(got));
                got.release();
            }
            io.fsp.token.CapabilityToken foreign = io.fsp.token.CapabilityToken.issue(io.fsp.token.TokenKey.random(),
                    new io.fsp.token.TransferId(42), java.time.Instant.now().plusSeconds(60), io.fsp.token.TokenScope.ALL);
            ExecutionException refused = assertThrows(ExecutionException.class, () -> RelayConnection.connect(tap.address(),
                    ssl, h.group, RelayConnectionConfig.DEFAULT, foreign).get(10, TimeUnit.SECONDS));
            io.fsp.relaylink.RelayRefusedException r = assertInstanceOf(io.fsp.relaylink.RelayRefusedException.class,
                    refused.getCause());
            assertEquals(RelayErrorCode.UNKNOWN_TRANSFER, r.code());
        }
        tap.awaitClosed();
        assertEquals(List.of(true, false, true, false, true), tap.connections().stream().map(WireTap.Connection::tls).toList(),
                "the server's TLS connection and link, the client's, and the refused client's TLS connection alone");
        assertEquals(2, tap.streamsContaining(java.util.Arrays.copyOfRange(data, 1000, 1064)), "over the links");
        assertEquals(0, tap.streamsContaining(t.token().encode()), "the token stays under TLS");
    }

    /** A block the relay spilled to disk is sent from its file on a clear link (sendfile), and read into memory for TLS. */
    @Test
    void aSpilledBlockIsServedWholeOverALinkAndOverTls() throws Exception {
        h = new RelayHarness(store, 64 << 20, 64 << 10);
        byte[] data = block(1 << 20, 5);
        try (RelayConnection server = h.server(); RelayConnection clear = h.client();
             RelayConnection tls = h.connect(Optional.empty(), RelayConnectionConfig.DEFAULT.withClearLinks(false))) {
            RelayHarness.Opened t = h.open(server);
            for (int seq = 0; seq < 3; seq++) {
                server.putBlock(t.id(), seq, Unpooled.wrappedBuffer(data)).get(5, TimeUnit.SECONDS);
            }
            assertTrue(h.relay.store().held(t.id(), 2).orElseThrow().onDisk(), "beyond 64 KiB of memory: on disk");
            clear.authorize(t.token()).get(5, TimeUnit.SECONDS);
            tls.authorize(t.token()).get(5, TimeUnit.SECONDS);
            for (RelayConnection c : List.of(clear, tls, clear)) {
                for (int seq = 0; seq < 3; seq++) {
                    ByteBuf got = c.getBlock(t.id(), seq).get(5, TimeUnit.SECONDS);
                    assertArrayEquals(data, ByteBufUtil.getBytes(got), "block " + seq);
                    got.release();
                }
            }
        }
    }

    @Test
    void withBlocksOverTlsNothingOfABlockIsReadable() throws Exception {
        h = new RelayHarness(store, 64 << 20, 64 << 20);
        tap = new WireTap(h.relay.address(), WireTap.Change.NONE);
        byte[] data = block(256 << 10, 2);
        roundTrip(RelayConnectionConfig.DEFAULT.withClearLinks(false), data);
        tap.awaitClosed();
        assertEquals(List.of(true, true), tap.connections().stream().map(WireTap.Connection::tls).toList(), "two TLS connections, no clear link");
        assertEquals(0, tap.streamsContaining(java.util.Arrays.copyOfRange(data, 1000, 1064)));
    }

    /**
     * The 8th byte of a PUT_BLOCK's seq changed on its way: the relay refuses the frame (its tag), stores nothing, and
     * the server's connection ends, so the server places the block elsewhere; the relay goes on serving others.
     */
    @Test
    void aBlockFrameChangedOnTheWireIsRefusedAndStoresNothing() throws Exception {
        h = new RelayHarness(store, 64 << 20, 64 << 20);
        // The peer's clear stream: preamble and ticket (20), HELLO (5 + 16 + 6), then PUT_BLOCK: header 5, tag 16,
        // id 4, transfer 8, seq 8.
        long seqByte = 20 + 27 + 5 + 16 + 4 + 8 + 7;
        tap = new WireTap(h.relay.address(), (c, toRelay, offset, bytes, n) -> {
            if (!c.tls() && toRelay && offset <= seqByte && seqByte < offset + n) {
                bytes[(int) (seqByte - offset)] ^= 0x01;
            }
        });
        RelayHarness.Opened t;
        try (RelayConnection direct = h.server()) {
            t = h.open(direct);
            try (RelayConnection server = through(tap, true, RelayConnectionConfig.DEFAULT)) {
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> server.putBlock(t.id(), 0, Unpooled.wrappedBuffer(block(4096, 3))).get(5, TimeUnit.SECONDS));
                assertInstanceOf(RelayException.class, e.getCause());
                server.closeFuture().get(5, TimeUnit.SECONDS); // the link and its TLS connection end together
            }
            assertEquals(0, direct.status(t.id()).get(5, TimeUnit.SECONDS).blocks(), "nothing stored");
            direct.putBlock(t.id(), 0, Unpooled.wrappedBuffer(block(4096, 3))).get(5, TimeUnit.SECONDS);
            assertEquals(1, direct.status(t.id()).get(5, TimeUnit.SECONDS).blocks(), "the relay serves on");
        }
    }

    /**
     * A server pushing over its link says nothing on TLS meanwhile: the pair is idle only when both are, so its TLS
     * connection outlives the relay's idle timeout while blocks flow, and both end once nothing does.
     */
    @Test
    void aTlsConnectionLivesWhileItsLinkIsBusy() throws Exception {
        h = new RelayHarness(store, 64 << 20, 64 << 20, io.fsp.relay.ConnectionHandlers.NONE, RelayConnectionConfig.DEFAULT,
                RelayHarness.POLICY.withIdleTimeout(java.time.Duration.ofMillis(600)), false);
        try (RelayConnection server = h.server()) {
            RelayHarness.Opened t = h.open(server);
            for (int seq = 0; seq < 12; seq++) { // 2.4 s: four idle timeouts of the TLS connection
                server.putBlock(t.id(), seq, Unpooled.wrappedBuffer(block(1024, seq))).get(5, TimeUnit.SECONDS);
                Thread.sleep(200);
            }
            assertTrue(server.isOpen(), "open while its link pushes");
            server.closeFuture().get(5, TimeUnit.SECONDS); // then both idle: closed
        }
    }

    @Test
    void aTicketOpensOneLinkThatCarriesBlocksOnly() throws Exception {
        h = new RelayHarness(store, 64 << 20, 64 << 20);
        RelayHarness.Opened t;
        byte[] data = block(1000, 4);
        try (RelayConnection server = h.server()) {
            t = h.open(server);
            server.putBlock(t.id(), 0, Unpooled.wrappedBuffer(data)).get(5, TimeUnit.SECONDS);
        }
        try (SSLSocket tls = h.rawTls()) {
            Frames control = new Frames(tls.getInputStream(), tls.getOutputStream(), null);
            control.send(new RelayMessage.Hello(1, RelayMessage.VERSION));
            assertEquals(RelayRole.CLIENT, ((RelayMessage.Welcome) control.read()).role());
            control.send(new RelayMessage.BindRequest(2));
            assertEquals(RelayErrorCode.TOKEN_FOREIGN, ((RelayMessage.Error) control.read()).code(),
                    "no link before a token is accepted");
            control.send(new RelayMessage.Authorize(3, t.token().encode()));
            assertInstanceOf(RelayMessage.Ok.class, control.read());
            control.send(new RelayMessage.BindRequest(4));
            RelayMessage.BindGrant grant = (RelayMessage.BindGrant) control.read();
            control.send(new RelayMessage.BindRequest(5));
            assertEquals(RelayErrorCode.TOO_MANY_REQUESTS, ((RelayMessage.Error) control.read()).code(), "one link");

            try (Socket forged = link(ClearLink.random(ClearLink.TICKET_LENGTH))) {
                RelayHarness.assertClosed(forged.getInputStream());
            }
            try (Socket link = link(grant.ticket())) {
                Frames blocks = new Frames(link.getInputStream(), link.getOutputStream(), grant.secret());
                blocks.send(new RelayMessage.Hello(1, RelayMessage.VERSION));
                assertEquals(RelayRole.CLIENT, ((RelayMessage.Welcome) blocks.read()).role(), "the role of its TLS connection");
                blocks.send(new RelayMessage.GetBlock(2, t.id(), 0));
                RelayMessage.Block b = (RelayMessage.Block) blocks.read();
                assertArrayEquals(data, ByteBufUtil.getBytes(b.content()), "served with the token of its TLS connection");
                b.release();
                try (Socket again = link(grant.ticket())) {
                    RelayHarness.assertClosed(again.getInputStream()); // a ticket opens one link
                }
                blocks.send(new RelayMessage.Confirm(3, t.id(), List.of(0L)));
                RelayMessage.Error e = (RelayMessage.Error) blocks.read();
                assertEquals(RelayErrorCode.BAD_FRAME, e.code(), e.text());
                RelayHarness.assertClosed(link.getInputStream());
            }
            control.send(new RelayMessage.StatusRequest(6, t.id()));
            assertEquals(1, ((RelayMessage.Status) control.read()).blocks(), "the refused CONFIRM freed nothing");
        }
    }

    /** A plain connection to the relay that presents {@code ticket} as a clear link. */
    private Socket link(byte[] ticket) throws IOException {
        Socket s = new Socket(h.relay.address().getAddress(), h.relay.address().getPort());
        s.setSoTimeout(5000);
        s.getOutputStream().write(ClearLink.PREAMBLE);
        s.getOutputStream().write(ticket);
        return s;
    }

    /** Frames over a blocking stream, tagged when {@code secret} is given (a peer's side of a clear link). */
    private static final class Frames {
        private final DataInputStream in;
        private final OutputStream out;
        private final EmbeddedChannel encoder;
        private final EmbeddedChannel decoder;
        private final int tag;

        Frames(InputStream in, OutputStream out, byte[] secret) {
            this.in = new DataInputStream(in);
            this.out = out;
            this.encoder = new EmbeddedChannel(secret == null ? new RelayFrameEncoder()
                    : new RelayFrameEncoder(ClearLink.toRelay(secret)));
            this.decoder = new EmbeddedChannel(new RelayFrameDecoder(RelayLimits.DEFAULT, true,
                    secret == null ? null : ClearLink.fromRelay(secret)));
            this.tag = secret == null ? 0 : ClearLink.TAG_LENGTH;
        }

        void send(RelayMessage m) throws IOException {
            encoder.writeOutbound(m);
            for (ByteBuf b; (b = encoder.readOutbound()) != null; ) {
                out.write(ByteBufUtil.getBytes(b));
                b.release();
            }
            out.flush();
        }

        RelayMessage read() throws IOException {
            byte[] header = new byte[5 + tag];
            in.readFully(header);
            byte[] body = new byte[Unpooled.wrappedBuffer(header).getInt(1)];
            in.readFully(body);
            decoder.writeInbound(Unpooled.wrappedBuffer(header, body));
            return decoder.readInbound();
        }
    }
}

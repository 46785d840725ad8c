package io.fsp.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayConnectionConfig;
import io.fsp.relay.net.ConnectionPolicy;
import io.fsp.relay.store.StoreConfig;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.fsp.relaylink.wire.RelayLimits;
import io.fsp.tls.Certificates;
import io.fsp.tls.KeyMaterial;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.tls.SslContexts;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TokenKey;
import io.fsp.token.TokenScope;
import io.fsp.token.TransferId;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.handler.ssl.SslContext;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;

/** A real relay on loopback plus the means to talk to it as a trusted server or as a client. */
public final class RelayHarness implements AutoCloseable {
    public static final KeyMaterial SERVER = Certificates.selfSigned("fsp-server");
    public static final KeyMaterial RELAY = Certificates.selfSigned("fsp-relay");
    /** Another server the relay trusts. */
    public static final KeyMaterial SECOND_SERVER = Certificates.selfSigned("second fsp-server");
    /** 64 connections; the default deadlines; refusals without limit, for tests that collect several. */
    public static final ConnectionPolicy POLICY = ConnectionPolicy.DEFAULT.withMaxUnauthenticatedPerAddress(64)
            .withMaxRefusals(Integer.MAX_VALUE);
    public final MutableClock clock;
    public final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    public final FspRelay relay;
    private final RelayConnectionConfig connectionConfig;
    private final ConnectionHandlers handlers;
    private final ConnectionPolicy policy;
    private final boolean verifyBlocks;

    public RelayHarness(Path store, long quota, long memory) throws Exception {
        this(store, quota, memory, ConnectionHandlers.NONE,
                RelayConnectionConfig.DEFAULT.withRequestTimeout(Duration.ofSeconds(5)));
    }

    public RelayHarness(Path store, long quota, long memory, ConnectionHandlers handlers, RelayConnectionConfig connectionConfig)
            throws Exception {
        this(store, quota, memory, handlers, connectionConfig, POLICY, false);
    }

    /** Half the quota per transfer, so that two transfers fit at once. */
    public RelayHarness(Path store, long quota, long memory, ConnectionHandlers handlers, RelayConnectionConfig connectionConfig,
                        ConnectionPolicy policy, boolean verifyBlocks) throws Exception {
        this(new StoreConfig(store, quota, memory, Duration.ofMinutes(10), quota, Math.max(1, quota / 2),
                StoreConfig.DEFAULT_MAX_RETAIN), handlers,
                connectionConfig, policy, verifyBlocks);
    }

    public RelayHarness(StoreConfig store, ConnectionHandlers handlers, RelayConnectionConfig connectionConfig,
                        ConnectionPolicy policy, boolean verifyBlocks) throws Exception {
        this(store, handlers, connectionConfig, policy, verifyBlocks, new MutableClock(Instant.now()), c -> c);
    }

    /** As the others, with the relay's configuration changed by {@code adjust} (metrics, caps). */
    public RelayHarness(Path store, long quota, long memory, UnaryOperator<RelayConfig> adjust) throws Exception {
        this(new StoreConfig(store, quota, memory, Duration.ofMinutes(10), quota, Math.max(1, quota / 2),
                StoreConfig.DEFAULT_MAX_RETAIN), ConnectionHandlers.NONE,
                RelayConnectionConfig.DEFAULT.withRequestTimeout(Duration.ofSeconds(30)), POLICY, false,
                new MutableClock(Instant.now()), adjust);
    }

    private RelayHarness(StoreConfig store, ConnectionHandlers handlers, RelayConnectionConfig connectionConfig,
                         ConnectionPolicy policy, boolean verifyBlocks, MutableClock clock,
                         UnaryOperator<RelayConfig> adjust) throws Exception {
        this.connectionConfig = connectionConfig;
        this.handlers = handlers;
        this.policy = policy;
        this.verifyBlocks = verifyBlocks;
        this.clock = clock;
        relay = FspRelay.start(adjust.apply(new RelayConfig(new InetSocketAddress("127.0.0.1", 0), store, RELAY,
                Set.of(SERVER.fingerprint(), SECOND_SERVER.fingerprint()), RelayLimits.DEFAULT, policy, verifyBlocks,
                false, handlers, clock)));
    }

    /** Connects with the trusted server's certificate. */
    public RelayConnection server() throws Exception {
        return connect(Optional.of(SERVER), connectionConfig);
    }

    /** Connects without a certificate, as a client does. */
    public RelayConnection client() throws Exception {
        return connect(Optional.empty(), connectionConfig);
    }

    public RelayConnection connect(Optional<KeyMaterial> identity, RelayConnectionConfig config) throws Exception {
        SslContext ssl = SslContexts.client(PinnedTrustManager.of(Set.of(RELAY.fingerprint())), identity);
        return RelayConnection.connect(relay.address(), ssl, group, config).get(10, TimeUnit.SECONDS);
    }

    /** A transfer opened at the relay by the trusted server, with a token for the client. */
    public record Opened(TransferId id, TokenKey key, CapabilityToken token) {
    }

    /** Opens a transfer that declares more space than any test pushes: the relay reserves its per-transfer limit. */
    public Opened open(RelayConnection server) throws Exception {
        return open(server, Long.MAX_VALUE);
    }

    public Opened open(RelayConnection server, long space) throws Exception {
        TransferId id = TransferId.random();
        TokenKey key = TokenKey.random();
        Instant expires = clock.instant().plus(Duration.ofHours(1));
        server.openTransfer(id, key, expires, space).get(5, TimeUnit.SECONDS);
        return new Opened(id, key, CapabilityToken.issue(key, id, expires, TokenScope.ALL));
    }

    /** A TLS connection without a certificate, handshake done, nothing said yet. */
    public SSLSocket rawTls() throws Exception {
        return rawTls(InetAddress.getLoopbackAddress());
    }

    /** As {@link #rawTls()}, from {@code from} (any 127.x.y.z address reaches the relay on loopback). */
    public SSLSocket rawTls(InetAddress from) throws Exception {
        SSLContext ctx = SSLContext.getInstance("TLSv1.3");
        ctx.init(null, new TrustManager[] {PinnedTrustManager.of(Set.of(RELAY.fingerprint()))}, null);
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(relay.address().getAddress(),
                relay.address().getPort(), from, 0);
        s.setSoTimeout(5000);
        s.startHandshake();
        return s;
    }

    /** Reads an ERROR frame and returns its code. */
    public static RelayErrorCode readError(DataInputStream in) throws IOException {
        assertEquals(0xFF, in.readUnsignedByte());
        int length = in.readInt();
        in.readInt(); // id
        int code = in.readUnsignedShort();
        in.skipNBytes(length - 6);
        return RelayErrorCode.ofWire(code);
    }

    /** The peer closed the connection: end of stream, or a reset. */
    public static void assertClosed(InputStream in) throws IOException {
        try {
            assertEquals(-1, in.read());
        } catch (EOFException | SSLException | SocketException e) {
            // closed
        }
    }

    /**
     * Waits until the relay has taken {@code put} in: it waits there for space ({@link
     * BlockStore#waiting}), or it is answered. Whether it is answered can then be asserted.
     */
    public void awaitTakenIn(CompletableFuture<?> put) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (relay.store().waiting() == 0 && !put.isDone()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the relay neither answered the put nor made it wait");
            }
            Thread.sleep(5);
        }
    }

    public static List<Long> seqs(long from, long toExclusive) {
        return java.util.stream.LongStream.range(from, toExclusive).boxed().toList();
    }

    /**
     * Stops this relay as its daemon stops ({@link FspRelay#close()}) and starts another on the same store, with
     * the same settings and clock (moved on by {@code after}).
     */
    public RelayHarness restart(Duration after) throws Exception {
        close();
        clock.advance(after);
        return new RelayHarness(relay.config().store(), handlers, connectionConfig, policy, verifyBlocks, clock, c -> c);
    }

    @Override
    public void close() {
        relay.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** {@code size} bytes that {@code seed} alone determines: a block a test puts and later compares. */
    public static byte[] block(int size, long seed) {
        byte[] b = new byte[size];
        new java.util.Random(seed).nextBytes(b);
        if (size >= 4) {
            b[3] |= 0x40; // flags say ENCRYPTED (docs/protocol.md §2.2): a peer pushes only sealed blocks over a clear link
        }
        return b;
    }
}

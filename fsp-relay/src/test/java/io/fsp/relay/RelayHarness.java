package io.fsp.relay;

import io.fsp.relay.client.RelayConnection;
import io.fsp.relay.client.RelayConnectionConfig;
import io.fsp.relay.fault.FaultPlan;
import io.fsp.relay.store.StoreConfig;
import io.fsp.relay.wire.RelayLimits;
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
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** A real relay on loopback plus the means to talk to it as a trusted server or as a client. */
public final class RelayHarness implements AutoCloseable {
    public static final KeyMaterial SERVER = Certificates.selfSigned("fsp-server");
    public static final KeyMaterial RELAY = Certificates.selfSigned("fsp-relay");
    public final MutableClock clock = new MutableClock(Instant.now());
    public final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    public final FspRelay relay;
    private final RelayConnectionConfig connectionConfig;

    public RelayHarness(Path store, long quota, long memory, FaultPlan faults) throws Exception {
        this(store, quota, memory, faults, RelayConnectionConfig.DEFAULT.withRequestTimeout(Duration.ofSeconds(5)));
    }

    public RelayHarness(Path store, long quota, long memory, FaultPlan faults, RelayConnectionConfig connectionConfig)
            throws Exception {
        this(store, quota, memory, faults, connectionConfig, RelayConfig.DEFAULT_IDLE_TIMEOUT, false);
    }

    public RelayHarness(Path store, long quota, long memory, FaultPlan faults, RelayConnectionConfig connectionConfig,
                        Duration idleTimeout, boolean verifyBlocks) throws Exception {
        this.connectionConfig = connectionConfig;
        relay = FspRelay.start(new RelayConfig(new InetSocketAddress("127.0.0.1", 0),
                new StoreConfig(store, quota, memory, Duration.ofMinutes(10)), RELAY, Set.of(SERVER.fingerprint()),
                RelayLimits.DEFAULT, 64, idleTimeout, verifyBlocks, false, faults, clock));
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

    public Opened open(RelayConnection server) throws Exception {
        TransferId id = TransferId.random();
        TokenKey key = TokenKey.random();
        Instant expires = clock.instant().plus(Duration.ofHours(1));
        server.openTransfer(id, key, expires, 0).get(5, TimeUnit.SECONDS);
        return new Opened(id, key, CapabilityToken.issue(key, id, expires, TokenScope.ALL));
    }

    public static List<Long> seqs(long from, long toExclusive) {
        return java.util.stream.LongStream.range(from, toExclusive).boxed().toList();
    }

    @Override
    public void close() {
        relay.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}

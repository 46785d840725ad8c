package io.fsp.relay;

import io.fsp.config.ByteSize;
import io.fsp.config.ConfigLoader;
import io.fsp.config.ConfigSource;
import io.fsp.net.HostPort;
import io.fsp.net.SocketBuffers;
import io.fsp.relay.net.ConnectionPolicy;
import io.fsp.relay.net.RateLimits;
import io.fsp.relay.store.StoreConfig;
import io.fsp.relaylink.wire.RelayLimits;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.KeyMaterial;
import io.netty.util.internal.PlatformDependent;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Everything an operator can tell {@code fsp-relay}, with the defaults of {@link #defaults()}. Each component is a
 * key of the configuration file ({@code maxRetain} is {@code max-retain}, see {@code conf/relay.conf.example})
 * and the command line option of the same name ({@code --max-retain}); {@link #toConfig} turns them into the
 * running relay's {@link RelayConfig}. Each value is checked here on its own; what depends on several values
 * (the quotas' order, memory against the JVM's direct memory) once all layers are applied, in {@link #toConfig}.
 *
 * @param listen where servers and clients connect; required to serve
 * @param store the directory for spilled blocks and retained transfers; required to serve
 * @param trustServer the fingerprints of the servers whose blocks the relay takes; at least one to serve
 * @param stateDir where the certificate and key are kept (empty: {@code ~/.fsp/relay})
 * @param serverQuota empty: all of {@code quota}
 * @param transferSpace empty: an eighth of the server quota, at least {@code max-block}
 * @param serverRetainedSpace empty: half the server quota
 * @param socketBuffer 0: the kernel's autotuning
 * @param meridian empty: no Meridian node, unless {@code meridian-bootstrap} is given (then the listen address)
 * @param metrics where to serve Prometheus metrics (empty: nowhere, no port opened)
 * @param rateLimit bytes per second the relay sends in all, and block bytes it receives in all (0: no cap)
 * @param rateLimitPerTransfer block bytes per second of one transfer, each direction (0: no cap)
 */
public record RelaySettings(
        Optional<HostPort> listen,
        Optional<Path> store,
        List<Fingerprint> trustServer,
        Optional<Path> stateDir,
        ByteSize quota,
        ByteSize memory,
        Optional<ByteSize> serverQuota,
        Optional<ByteSize> transferSpace,
        Optional<ByteSize> serverRetainedSpace,
        Duration ttl,
        Duration maxRetain,
        ByteSize maxBlock,
        ByteSize socketBuffer,
        int maxConnections,
        int maxUnauthenticatedPerAddress,
        Duration authTimeout,
        Duration idleTimeout,
        int maxRefusals,
        int maxClientConnectionsPerAddress,
        int maxConnectionsPerTransfer,
        Optional<Integer> serverConnections,
        boolean verifyBlocks,
        boolean acceptClearBlocks,
        Optional<HostPort> meridian,
        List<HostPort> meridianBootstrap,
        Optional<HostPort> metrics,
        ByteSize rateLimit,
        ByteSize rateLimitPerTransfer) {
    private static final ByteSize LARGEST_BLOCK = new ByteSize(1 << 30);

    public RelaySettings {
        trustServer = List.copyOf(trustServer);
        meridianBootstrap = List.copyOf(meridianBootstrap);
        if (maxBlock.bytes() < 1 || maxBlock.bytes() > LARGEST_BLOCK.bytes()) {
            throw new IllegalArgumentException("max-block: " + maxBlock + " (expected: 1.." + LARGEST_BLOCK + ")");
        }
        SocketBuffers.check("socket-buffer", socketBuffer.bytes());
        connectionPolicy(maxConnections, maxUnauthenticatedPerAddress, authTimeout, idleTimeout, maxRefusals,
                maxClientConnectionsPerAddress, maxConnectionsPerTransfer, serverConnections);
        requirePositive("ttl", ttl);
        requirePositive("max-retain", maxRetain);
        for (HostPort peer : meridianBootstrap) {
            if (peer.port() == 0) {
                throw new IllegalArgumentException("meridian-bootstrap: " + peer + ": port 0 (expected: 1..65535)");
            }
        }
    }

    public static RelaySettings defaults() {
        return new RelaySettings(Optional.empty(), Optional.empty(), List.of(), Optional.empty(),
                new ByteSize(2L << 30), ByteSize.ofMebibytes(256), Optional.empty(), Optional.empty(), Optional.empty(),
                Duration.ofHours(1), StoreConfig.DEFAULT_MAX_RETAIN, new ByteSize(RelayLimits.DEFAULT_MAX_BLOCK_BYTES),
                new ByteSize(0), ConnectionPolicy.DEFAULT.maxConnections(),
                ConnectionPolicy.DEFAULT.maxUnauthenticatedPerAddress(), ConnectionPolicy.DEFAULT.authTimeout(),
                ConnectionPolicy.DEFAULT.idleTimeout(), ConnectionPolicy.DEFAULT.maxRefusals(),
                ConnectionPolicy.DEFAULT.maxClientConnectionsPerAddress(),
                ConnectionPolicy.DEFAULT.maxConnectionsPerTransfer(), Optional.empty(), true, false,
                Optional.empty(), List.of(), Optional.empty(), new ByteSize(0), new ByteSize(0));
    }

    /** The defaults, then {@code file} if given, then the options on the command line. */
    public static RelaySettings load(Optional<Path> file, ConfigSource commandLine) {
        return ConfigLoader.load(defaults(), file.map(ConfigSource::read).orElse(ConfigSource.empty("defaults")),
                commandLine);
    }

    /** Where the certificate and key live: {@code state-dir}, else {@code ~/.fsp/relay}. */
    public Path effectiveStateDir() {
        return stateDir.orElseGet(() -> Path.of(System.getProperty("user.home"), ".fsp", "relay"));
    }

    /** The keys a relay cannot serve without, as options ({@code --listen=HOST:PORT}); empty when all are set. */
    public List<String> missingForServing() {
        List<String> missing = new java.util.ArrayList<>();
        if (listen.isEmpty()) {
            missing.add("--listen=HOST:PORT");
        }
        if (store.isEmpty()) {
            missing.add("--store=DIR");
        }
        if (trustServer.isEmpty()) {
            missing.add("--trust-server=FINGERPRINT");
        }
        return missing;
    }

    /**
     * The running relay's configuration, with its certificate and key; the settings must name {@code listen},
     * {@code store} and {@code trust-server} ({@link #missingForServing()}).
     *
     * @throws IllegalArgumentException where the settings do not fit together, naming the options
     */
    public RelayConfig toConfig(KeyMaterial identity) {
        if (!missingForServing().isEmpty()) {
            throw new IllegalArgumentException("missing: " + String.join(", ", missingForServing()));
        }
        long maxDirect = PlatformDependent.maxDirectMemory();
        if (Math.min(memory.bytes(), quota.bytes()) > maxDirect * 3 / 4) {
            throw new IllegalArgumentException("--memory " + memory + ": more than 3/4 of the JVM's direct memory ("
                    + maxDirect + " bytes); lower --memory or raise -XX:MaxDirectMemorySize in FSP_JAVA_OPTS");
        }
        long serverQuotaBytes = serverQuota.orElse(quota).bytes();
        long transferSpaceBytes = transferSpace.map(ByteSize::bytes)
                .orElseGet(() -> StoreConfig.defaultTransferSpace(serverQuotaBytes, maxBlock.bytes()));
        StoreConfig storeConfig = new StoreConfig(store.orElseThrow(), quota.bytes(), memory.bytes(), ttl,
                serverQuotaBytes, transferSpaceBytes, maxRetain, serverRetainedSpace.map(ByteSize::bytes)
                        .orElseGet(() -> StoreConfig.defaultServerRetainedSpace(serverQuotaBytes)));
        Set<Fingerprint> trusted = new HashSet<>(trustServer);
        return new RelayConfig(listen.orElseThrow().toSocketAddress(), storeConfig, identity, trusted,
                new RelayLimits((int) maxBlock.bytes()),
                connectionPolicy(maxConnections, maxUnauthenticatedPerAddress, authTimeout, idleTimeout, maxRefusals,
                        maxClientConnectionsPerAddress, maxConnectionsPerTransfer, serverConnections),
                verifyBlocks, acceptClearBlocks, ConnectionHandlers.NONE, Clock.systemUTC(), (int) socketBuffer.bytes(),
                metrics.map(HostPort::toSocketAddress), new RateLimits(rateLimit.bytes(), rateLimitPerTransfer.bytes()));
    }

    private static ConnectionPolicy connectionPolicy(int maxConnections, int maxUnauthenticatedPerAddress,
            Duration authTimeout, Duration idleTimeout, int maxRefusals, int maxClientConnectionsPerAddress,
            int maxConnectionsPerTransfer, Optional<Integer> serverConnections) {
        return new ConnectionPolicy(maxConnections, maxUnauthenticatedPerAddress, authTimeout, idleTimeout, maxRefusals,
                maxClientConnectionsPerAddress, maxConnectionsPerTransfer,
                serverConnections.orElse(ConnectionPolicy.defaultServerConnections(maxConnections)));
    }

    private static void requirePositive(String key, Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(key + ": " + d + " (expected: > 0)");
        }
    }
}

package io.fsp.relay;

import io.fsp.net.SocketBuffers;
import io.fsp.relay.net.ConnectionPolicy;
import io.fsp.relay.net.RateLimits;
import io.fsp.relay.store.StoreConfig;
import io.fsp.relaylink.wire.RelayLimits;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.KeyMaterial;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;

/**
 * Everything a relay needs to run.
 *
 * @param listen address to listen on (port 0: any free port)
 * @param identity the relay's TLS key and certificate
 * @param trustedServers fingerprints of the servers allowed to open transfers and put blocks
 * @param connections limits on connections, before and after they authenticate
 * @param verifyBlocks refuse pushed blocks that are not sound FSP blocks of their transfer and sequence
 *                     number (wire checksum, header); off only for peers that push other opaque bytes
 * @param acceptClearBlocks store blocks that are not encrypted (with {@code verifyBlocks}; off: a relay
 *                          never holds plaintext)
 * @param handlers what an embedding program adds to each connection ({@link ConnectionHandlers}); usually
 *                 {@link ConnectionHandlers#NONE}
 * @param socketBuffer a fixed size for both socket buffers of every connection, 0 to leave them to the kernel's
 *                     autotuning ({@link SocketBuffers})
 * @param metrics where to serve the Prometheus endpoint ({@code --metrics}); empty: nowhere
 * @param rates bandwidth caps ({@code --rate-limit}, {@code --rate-limit-per-transfer})
 * @param stateDir where {@code fsp-relay join} records the servers joined, trusted beside {@code trustedServers}
 *                 and read again as they change (empty: only {@code trustedServers})
 */
public record RelayConfig(InetSocketAddress listen, StoreConfig store, KeyMaterial identity,
                          Set<Fingerprint> trustedServers, RelayLimits limits, ConnectionPolicy connections,
                          boolean verifyBlocks, boolean acceptClearBlocks, ConnectionHandlers handlers, Clock clock,
                          int socketBuffer, Optional<InetSocketAddress> metrics, RateLimits rates,
                          Optional<Path> stateDir) {
    /** No joined servers. */
    public RelayConfig(InetSocketAddress listen, StoreConfig store, KeyMaterial identity,
                       Set<Fingerprint> trustedServers, RelayLimits limits, ConnectionPolicy connections,
                       boolean verifyBlocks, boolean acceptClearBlocks, ConnectionHandlers handlers, Clock clock,
                       int socketBuffer, Optional<InetSocketAddress> metrics, RateLimits rates) {
        this(listen, store, identity, trustedServers, limits, connections, verifyBlocks, acceptClearBlocks, handlers,
                clock, socketBuffer, metrics, rates, Optional.empty());
    }

    /** No metrics endpoint, no caps. */
    public RelayConfig(InetSocketAddress listen, StoreConfig store, KeyMaterial identity,
                       Set<Fingerprint> trustedServers, RelayLimits limits, ConnectionPolicy connections,
                       boolean verifyBlocks, boolean acceptClearBlocks, ConnectionHandlers handlers, Clock clock,
                       int socketBuffer) {
        this(listen, store, identity, trustedServers, limits, connections, verifyBlocks, acceptClearBlocks, handlers,
                clock, socketBuffer, Optional.empty(), RateLimits.NONE);
    }

    /** Socket buffers left to the kernel. */
    public RelayConfig(InetSocketAddress listen, StoreConfig store, KeyMaterial identity,
                       Set<Fingerprint> trustedServers, RelayLimits limits, ConnectionPolicy connections,
                       boolean verifyBlocks, boolean acceptClearBlocks, ConnectionHandlers handlers, Clock clock) {
        this(listen, store, identity, trustedServers, limits, connections, verifyBlocks, acceptClearBlocks, handlers,
                clock, 0);
    }

    public RelayConfig {
        SocketBuffers.check("--socket-buffer", socketBuffer);
        trustedServers = Set.copyOf(trustedServers);
        if (trustedServers.isEmpty() && stateDir.isEmpty()) {
            throw new IllegalArgumentException("--trust-server: none given (expected: the fingerprint of at least"
                    + " one server, as the server prints it at start)");
        }
    }

    public RelayConfig withHandlers(ConnectionHandlers extra) {
        return new RelayConfig(listen, store, identity, trustedServers, limits, connections, verifyBlocks,
                acceptClearBlocks, extra, clock, socketBuffer, metrics, rates, stateDir);
    }

    public RelayConfig withMetrics(InetSocketAddress address) {
        return new RelayConfig(listen, store, identity, trustedServers, limits, connections, verifyBlocks,
                acceptClearBlocks, handlers, clock, socketBuffer, Optional.of(address), rates, stateDir);
    }

    public RelayConfig withRates(RateLimits caps) {
        return new RelayConfig(listen, store, identity, trustedServers, limits, connections, verifyBlocks,
                acceptClearBlocks, handlers, clock, socketBuffer, metrics, caps, stateDir);
    }
}

package io.fsp.relay;

import io.fsp.net.SocketBuffers;
import io.fsp.relay.fault.FaultPlan;
import io.fsp.relay.store.StoreConfig;
import io.fsp.relay.wire.RelayLimits;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.KeyMaterial;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;

/**
 * Everything a relay needs to run.
 *
 * @param listen address to listen on (port 0: any free port)
 * @param identity the relay's TLS key and certificate
 * @param trustedServers fingerprints of the servers allowed to open transfers and put blocks
 * @param maxConnections connections served at once; more are closed at once
 * @param idleTimeout a connection that sends and receives nothing for this long is closed
 * @param verifyBlocks refuse pushed blocks that are not sound FSP blocks of their transfer and sequence
 *                     number (wire checksum, header); off only for peers that push other opaque bytes
 * @param acceptClearBlocks store blocks that are not encrypted (with {@code verifyBlocks}; off: a relay
 *                          never holds plaintext)
 * @param faults misbehaviour towards clients, for tests; {@link FaultPlan#NONE} in production
 * @param socketBuffer a fixed size for both socket buffers of every connection, 0 to leave them to the kernel's
 *                     autotuning ({@link SocketBuffers})
 */
public record RelayConfig(InetSocketAddress listen, StoreConfig store, KeyMaterial identity,
                          Set<Fingerprint> trustedServers, RelayLimits limits, int maxConnections, Duration idleTimeout,
                          boolean verifyBlocks, boolean acceptClearBlocks, FaultPlan faults, Clock clock,
                          int socketBuffer) {
    public static final int DEFAULT_MAX_CONNECTIONS = 1024;
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofMinutes(10);

    /** Socket buffers left to the kernel. */
    public RelayConfig(InetSocketAddress listen, StoreConfig store, KeyMaterial identity,
                       Set<Fingerprint> trustedServers, RelayLimits limits, int maxConnections, Duration idleTimeout,
                       boolean verifyBlocks, boolean acceptClearBlocks, FaultPlan faults, Clock clock) {
        this(listen, store, identity, trustedServers, limits, maxConnections, idleTimeout, verifyBlocks,
                acceptClearBlocks, faults, clock, 0);
    }

    public RelayConfig {
        SocketBuffers.check("--socket-buffer", socketBuffer);
        trustedServers = Set.copyOf(trustedServers);
        if (trustedServers.isEmpty()) {
            throw new IllegalArgumentException("--trust-server: none given (expected: the fingerprint of at least"
                    + " one server, as the server prints it at start)");
        }
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("--idle-timeout " + idleTimeout + ": (expected: > 0)");
        }
        if (maxConnections < 1) {
            throw new IllegalArgumentException("--max-connections " + maxConnections + ": (expected: >= 1)");
        }
    }

    public RelayConfig withFaults(FaultPlan plan) {
        return new RelayConfig(listen, store, identity, trustedServers, limits, maxConnections, idleTimeout, verifyBlocks,
                acceptClearBlocks, plan, clock, socketBuffer);
    }
}

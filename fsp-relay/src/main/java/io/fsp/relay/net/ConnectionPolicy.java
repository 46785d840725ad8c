package io.fsp.relay.net;

import java.time.Duration;

/**
 * What a relay grants a connection before and after it shows credentials (a trusted server's certificate
 * and HELLO, or an accepted token), so that peers without any cannot exhaust it.
 *
 * @param maxConnections connections served at once; more are closed at once
 * @param maxUnauthenticatedPerAddress connections from one IP address that have not authenticated yet; more
 *                                     from that address are closed at once
 * @param authTimeout a connection that has not authenticated this long after it was accepted is closed
 * @param idleTimeout an authenticated connection that sends and receives nothing for this long is closed
 * @param maxRefusals a connection without a trusted server certificate is closed once this many of its
 *                    requests were refused (forged tokens, foreign blocks, …)
 * @param maxClientConnectionsPerAddress client connections holding an accepted token from one IP address
 * @param maxConnectionsPerTransfer client connections holding a token for one transfer
 * @param serverConnections of {@code maxConnections}, the ones client connections holding tokens never take, so
 *                          that trusted servers find room
 */
public record ConnectionPolicy(int maxConnections, int maxUnauthenticatedPerAddress, Duration authTimeout,
                               Duration idleTimeout, int maxRefusals, int maxClientConnectionsPerAddress,
                               int maxConnectionsPerTransfer, int serverConnections) {
    public static final ConnectionPolicy DEFAULT = new ConnectionPolicy(1024, 16, Duration.ofSeconds(10),
            Duration.ofMinutes(5), 3, 64, 32, defaultServerConnections(1024));

    public ConnectionPolicy {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("--max-connections " + maxConnections + ": (expected: >= 1)");
        }
        if (maxUnauthenticatedPerAddress < 1) {
            throw new IllegalArgumentException("--max-unauthenticated-per-address " + maxUnauthenticatedPerAddress
                    + ": (expected: >= 1)");
        }
        if (authTimeout.isNegative() || authTimeout.isZero()) {
            throw new IllegalArgumentException("--auth-timeout " + authTimeout + ": (expected: > 0)");
        }
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("--idle-timeout " + idleTimeout + ": (expected: > 0)");
        }
        if (maxRefusals < 1) {
            throw new IllegalArgumentException("--max-refusals " + maxRefusals + ": (expected: >= 1)");
        }
        if (maxClientConnectionsPerAddress < 1) {
            throw new IllegalArgumentException("--max-client-connections-per-address " + maxClientConnectionsPerAddress
                    + ": (expected: >= 1)");
        }
        if (maxConnectionsPerTransfer < 1) {
            throw new IllegalArgumentException("--max-connections-per-transfer " + maxConnectionsPerTransfer
                    + ": (expected: >= 1)");
        }
        if (serverConnections < 0 || serverConnections >= maxConnections) {
            throw new IllegalArgumentException("--server-connections " + serverConnections + ": (expected: 0.."
                    + (maxConnections - 1) + ", below --max-connections)");
        }
    }

    /** Kept for servers unless configured: a sixteenth of the connections (64 of 1024). */
    public static int defaultServerConnections(int maxConnections) {
        return maxConnections / 16;
    }

    /** Client connections holding tokens, in all. */
    public int maxClientConnections() {
        return maxConnections - serverConnections;
    }

    public ConnectionPolicy withIdleTimeout(Duration timeout) {
        return new ConnectionPolicy(maxConnections, maxUnauthenticatedPerAddress, authTimeout, timeout, maxRefusals,
                maxClientConnectionsPerAddress, maxConnectionsPerTransfer, serverConnections);
    }

    public ConnectionPolicy withAuthTimeout(Duration timeout) {
        return new ConnectionPolicy(maxConnections, maxUnauthenticatedPerAddress, timeout, idleTimeout, maxRefusals,
                maxClientConnectionsPerAddress, maxConnectionsPerTransfer, serverConnections);
    }

    public ConnectionPolicy withMaxUnauthenticatedPerAddress(int max) {
        return new ConnectionPolicy(maxConnections, max, authTimeout, idleTimeout, maxRefusals,
                maxClientConnectionsPerAddress, maxConnectionsPerTransfer, serverConnections);
    }

    public ConnectionPolicy withMaxRefusals(int max) {
        return new ConnectionPolicy(maxConnections, maxUnauthenticatedPerAddress, authTimeout, idleTimeout, max,
                maxClientConnectionsPerAddress, maxConnectionsPerTransfer, serverConnections);
    }

    public ConnectionPolicy withClientConnections(int maxConnections, int serverConnections, int perAddress,
                                                  int perTransfer) {
        return new ConnectionPolicy(maxConnections, maxUnauthenticatedPerAddress, authTimeout, idleTimeout, maxRefusals,
                perAddress, perTransfer, serverConnections);
    }
}

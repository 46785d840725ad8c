package io.fsp.server.config;

import io.fsp.config.ByteSize;
import io.fsp.config.Durations;
import io.fsp.extension.FspOption;
import io.fsp.net.HostPort;
import io.fsp.server.ftp.FtpCoreConfig;
import io.fsp.server.ftp.PortRange;
import io.fsp.server.select.CollectRelay;
import io.fsp.server.select.RelayEndpoint;
import io.fsp.server.stripe.RetainGrant;
import io.fsp.tls.Fingerprint;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Everything the server can be told, in groups by concern; what the FTP core reads is its own group, {@link
 * FtpCoreConfig}. Each component of a group is a key of the configuration file ({@code passivePorts} is {@code
 * passive-ports}), the groups' names are not; {@link ServerSettings} declares
 * each key with its default, help and bounds, and {@code conf/server.conf.example} says what each means. The checks
 * here are those that bounds cannot say.
 */
public record ServerConfig(FtpCoreConfig ftpCore, Network network, Access access, Tls tls, Limits limits,
                           Striping striping, Collection collection) {

    /** Where the server listens and how its sockets are set up. */
    public record Network(List<HostPort> listen, Optional<PortRange> passivePorts, Optional<String> announceAddress,
                          Optional<HostPort> metrics) {
        public Network {
            listen = List.copyOf(listen);
            if (listen.isEmpty()) {
                throw new IllegalArgumentException("listen: none (expected: at least one HOST:PORT)");
            }
        }
    }

    /** Who may log in, and to what. */
    public record Access(Optional<Path> root, List<String> user, Optional<Path> usersFile, boolean anonymous) {
        public Access {
            user = List.copyOf(user);
            for (String u : user) {
                if (u.isEmpty() || u.indexOf(':') == 0) {
                    throw new IllegalArgumentException("user: '" + u.replaceAll(":.*", ":****")
                            + "' (expected: NAME or NAME:PASSWORD)");
                }
            }
        }
    }

    /** The server's certificate, and whether FSP may go without TLS. */
    public record Tls(Optional<Path> stateDir, Optional<Path> certificate, Optional<Path> privateKey,
                      boolean fspWithoutTls) {
        public Tls {
            if (certificate.isPresent() != privateKey.isPresent()) {
                throw new IllegalArgumentException("certificate and private-key: only one is set (expected: both or"
                        + " neither)");
            }
        }
    }

    /** How many connections the server takes, its threads, and what failed logins cost. */
    public record Limits(int maxConnections, int maxConnectionsPerAddress, Duration loginFailureDelay, int ioThreads,
                         int blockingThreads, int loginThreads, int controlWriteBuffer) {
        public Limits {
            if (loginFailureDelay.isNegative()) {
                throw new IllegalArgumentException("login-failure-delay: " + loginFailureDelay + " (expected: >= 0)");
            }
        }
    }

    /** The FSP extension's striped transfers: relays, their selection, and what a transfer may ask. */
    public record Striping(List<RelayEndpoint> relay, Optional<HostPort> meridian, Optional<HostPort> meridianEntry,
                           List<Fingerprint> trustRelay, boolean trustOverlayRelays, Duration relaySelectionTimeout,
                           boolean relayBlocksOverTls, int maxBlocksPerTransfer, long maxPlanned, Duration maxRetain,
                           List<RetainGrant> retainUser, ByteSize digestCache) {
        public Striping {
            relay = List.copyOf(relay);
            trustRelay = List.copyOf(trustRelay);
            retainUser = List.copyOf(retainUser);
            if (retainUser.stream().map(RetainGrant::user).distinct().count() < retainUser.size()) {
                throw new IllegalArgumentException("retain-user: a user named twice (expected: one line per user)");
            }
            Durations.requirePositive("relay-selection-timeout", relaySelectionTimeout);
            if (maxRetain.compareTo(FspOption.MIN_RETAIN) < 0) {
                throw new IllegalArgumentException("max-retain: " + Durations.format(maxRetain)
                        + " (expected: >= " + Durations.format(FspOption.MIN_RETAIN) + ")");
            }
        }
    }

    /** The FSP extension's third-party transfers (FCOL). */
    public record Collection(List<CollectRelay> collectRelay, Duration collectTimeout) {
        public Collection {
            collectRelay = List.copyOf(collectRelay);
            Durations.requirePositive("collect-timeout", collectTimeout);
        }
    }

    /** Every setting at its declared default. */
    public static ServerConfig defaults() {
        return ServerSettings.ALL.defaults();
    }

    /** The fixed size of data and relay connections' socket buffers, 0 for the kernel's autotuning. */
    public int socketBufferBytes() {
        return ftpCore.socketBufferBytes();
    }

    /** Where the generated certificate and key live: {@code state-dir}, else {@code ~/.fsp/server}. */
    public Path effectiveStateDir() {
        return tls.stateDir().orElseGet(() -> Path.of(System.getProperty("user.home"), ".fsp", "server"));
    }
}

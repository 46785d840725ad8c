package io.fsp.server.config;

import io.fsp.config.ByteSize;
import io.fsp.net.HostPort;
import io.fsp.net.SocketBuffers;
import io.fsp.server.ftp.FtpCoreConfig;
import io.fsp.server.ftp.PortRange;
import io.fsp.server.select.CollectRelay;
import io.fsp.server.select.RelayEndpoint;
import io.fsp.server.stripe.PlanBudget;
import io.fsp.server.stripe.RetainGrant;
import io.fsp.extension.TransferOptions;
import io.fsp.tls.Fingerprint;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Everything the server can be told, with the defaults of {@link #defaults()}. Each component is a key in
 * the configuration file ({@code passivePorts} is {@code passive-ports}); see
 * {@code conf/server.conf.example} for the meaning of each.
 */
public record ServerConfig(
        List<HostPort> listen,
        Optional<Path> root,
        List<String> user,
        Optional<Path> usersFile,
        boolean allowPlainLogin,
        boolean anonymous,
        Optional<PortRange> passivePorts,
        Optional<String> announceAddress,
        Optional<Path> stateDir,
        Optional<Path> certificate,
        Optional<Path> privateKey,
        boolean requireTlsSessionReuse,
        int maxLineLength,
        Duration idleTimeout,
        Duration loginGraceTime,
        Duration dataConnectTimeout,
        Duration dataTimeout,
        int maxConnections,
        int maxConnectionsPerAddress,
        Duration loginFailureDelay,
        int maxLoginFailures,
        int ioThreads,
        int blockingThreads,
        int loginThreads,
        int controlWriteBuffer,
        List<RelayEndpoint> relay,
        List<CollectRelay> collectRelay,
        Duration collectTimeout,
        boolean fspWithoutTls,
        Optional<HostPort> meridian,
        Optional<HostPort> meridianEntry,
        List<Fingerprint> trustRelay,
        boolean trustOverlayRelays,
        Duration relaySelectionTimeout,
        boolean fsyncUploads,
        int maxBlocksPerTransfer,
        long maxPlanned,
        ByteSize socketBuffer,
        boolean relayBlocksOverTls,
        Duration maxRetain,
        List<RetainGrant> retainUser,
        long checksumRate,
        long checksumBurst,
        ByteSize digestCache,
        Optional<HostPort> metrics) {

    public ServerConfig {
        listen = List.copyOf(listen);
        user = List.copyOf(user);
        relay = List.copyOf(relay);
        collectRelay = List.copyOf(collectRelay);
        requirePositive("collect-timeout", collectTimeout);
        trustRelay = List.copyOf(trustRelay);
        retainUser = List.copyOf(retainUser);
        if (retainUser.stream().map(RetainGrant::user).distinct().count() < retainUser.size()) {
            throw new IllegalArgumentException("retain-user: a user named twice (expected: one line per user)");
        }
        requirePositive("relay-selection-timeout", relaySelectionTimeout);
        SocketBuffers.check("socket-buffer", socketBuffer.bytes());
        if (listen.isEmpty()) {
            throw new IllegalArgumentException("listen: none (expected: at least one HOST:PORT)");
        }
        requireRange("max-line-length", maxLineLength, 64, 1 << 20);
        requireRange("max-connections", maxConnections, 1, 1_000_000);
        requireRange("max-connections-per-address", maxConnectionsPerAddress, 1, 1_000_000);
        requireRange("max-login-failures", maxLoginFailures, 1, 1000);
        requireRange("io-threads", ioThreads, 0, 1024);
        requireRange("blocking-threads", blockingThreads, 1, 1024);
        requireRange("login-threads", loginThreads, 1, 256);
        requireRange("control-write-buffer", controlWriteBuffer, 1024, 16 << 20);
        requireRange("max-blocks-per-transfer", maxBlocksPerTransfer, 1, Integer.MAX_VALUE);
        if (maxPlanned < 1) {
            throw new IllegalArgumentException("max-planned: " + maxPlanned + " (expected: >= 1)");
        }
        if (checksumRate < 1 || checksumBurst < 1) {
            throw new IllegalArgumentException("checksum-rate: " + checksumRate + ", checksum-burst: " + checksumBurst
                    + " (expected: >= 1 byte each)");
        }
        requirePositive("idle-timeout", idleTimeout);
        requirePositive("login-grace-time", loginGraceTime);
        requirePositive("data-timeout", dataTimeout);
        requirePositive("data-connect-timeout", dataConnectTimeout);
        if (maxRetain.compareTo(TransferOptions.MIN_RETAIN) < 0) {
            throw new IllegalArgumentException("max-retain: " + TransferOptions.formatDuration(maxRetain) + " (expected: >= "
                    + TransferOptions.formatDuration(TransferOptions.MIN_RETAIN) + ")");
        }
        if (loginFailureDelay.isNegative()) {
            throw new IllegalArgumentException("login-failure-delay: " + loginFailureDelay + " (expected: >= 0)");
        }
        if ((certificate.isPresent()) != (privateKey.isPresent())) {
            throw new IllegalArgumentException("certificate and private-key: only one is set (expected: both or neither)");
        }
        for (String u : user) {
            if (u.isEmpty() || u.indexOf(':') == 0) {
                throw new IllegalArgumentException("user: '" + u.replaceAll(":.*", ":****")
                        + "' (expected: NAME or NAME:PASSWORD)");
            }
        }
    }

    public static ServerConfig defaults() {
        return new ServerConfig(
                List.of(new HostPort("127.0.0.1", 2121)),
                Optional.empty(), List.of(), Optional.empty(),
                false, false,
                Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(),
                false,
                8192,
                Duration.ofMinutes(5), Duration.ofSeconds(60), Duration.ofSeconds(30), Duration.ofSeconds(300),
                256, 32,
                Duration.ofSeconds(1), 3,
                0, 16, 4, 64 * 1024,
                List.of(), List.of(), Duration.ofHours(6), false,
                Optional.empty(), Optional.empty(), List.of(), false, Duration.ofSeconds(5),
                true,
                1 << 20,
                PlanBudget.defaultLimit(),
                new ByteSize(0),
                false,
                Duration.ofDays(30), List.of(),
                128L << 20, 16L << 30,
                new ByteSize(32L << 20),
                Optional.empty());
    }

    /** The fixed size of data and relay connections' socket buffers, 0 for the kernel's autotuning. */
    public int socketBufferBytes() {
        return (int) socketBuffer.bytes();
    }

    /** What the FTP core reads of these settings. */
    public FtpCoreConfig ftpCore() {
        return new FtpCoreConfig(maxLineLength, idleTimeout, loginGraceTime, dataConnectTimeout, dataTimeout,
                maxLoginFailures, allowPlainLogin, requireTlsSessionReuse, fsyncUploads, socketBufferBytes(), checksumRate,
                checksumBurst);
    }

    /** Where the generated certificate and key live: {@code state-dir}, else {@code ~/.fsp/server}. */
    public Path effectiveStateDir() {
        return stateDir.orElseGet(() -> Path.of(System.getProperty("user.home"), ".fsp", "server"));
    }

    private static void requireRange(String key, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(key + ": " + value + " (expected: " + min + ".." + max + ")");
        }
    }

    private static void requirePositive(String key, Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(key + ": " + d + " (expected: > 0)");
        }
    }
}

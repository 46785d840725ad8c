package io.fsp.relay;

import io.fsp.config.ByteSize;
import io.fsp.config.ConfigSource;
import io.fsp.config.Durations;
import io.fsp.config.Setting;
import io.fsp.config.Settings;
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
 * Everything an operator can tell {@code fsp-relay}, in groups by concern, and the declaration of each setting
 * ({@link #ALL}: key, label, default, help line). Each component of a group is a key of the configuration file
 * ({@code maxRetain} is {@code max-retain}, see {@code conf/relay.conf.example}) and the command line option of the
 * same name ({@code --max-retain}); {@link #toConfig} turns them into the running relay's {@link RelayConfig}. Each
 * value is checked here on its own; what depends on several values (the quotas' order, memory against the JVM's
 * direct memory) once all layers are applied, in {@link #toConfig}.
 */
public record RelaySettings(Serving serving, Space space, Connections connections, Rates rates) {
    private static final ByteSize LARGEST_BLOCK = new ByteSize(1 << 30);
    private static final ConnectionPolicy LIMITS = ConnectionPolicy.DEFAULT;

    /** Every setting of {@code fsp-relay}, in the order of its help. */
    public static final Settings<RelaySettings> ALL = new Settings<>(RelaySettings.class, List.of(
            Setting.of("listen", "HOST:PORT", null, "Address to listen on; port 0 picks a free port (printed at start)."),
            Setting.of("store", "DIR", null, "Directory for blocks spilled from memory and for retained transfers"
                    + " (encrypted block bytes, and each retained transfer's metadata); at start the retained transfers"
                    + " found there are restored, everything else the relay left there is deleted."),
            Setting.of("trust-server", "FINGERPRINT", null, "SHA-256 certificate fingerprint of a server allowed to"
                    + " push blocks, as the server prints it at start or with 'fsp-server fingerprint' (repeatable)."
                    + " The servers joined with 'fsp-relay join' are trusted too, without it."),
            Setting.of("state-dir", "DIR", null, "Where the relay keeps its certificate and key (default: ~/.fsp/relay)."),
            Setting.of("quota", "SIZE", "2G", "Most block bytes held at once, memory and disk together (default:"
                    + " {default})."),
            Setting.of("memory", "SIZE", "256M", "Most block bytes held in memory; the rest spill to --store (default:"
                    + " {default})."),
            Setting.of("server-quota", "SIZE", null, "Most block bytes the transfers of one trusted server may reserve"
                    + " together, so that one server cannot crowd out the others (default: --quota)."),
            Setting.of("transfer-space", "SIZE", null, "Most block bytes reserved for one transfer, and held for it at"
                    + " once; a transfer that declares more streams through this much as its client confirms blocks"
                    + " (default: 1/8 of --server-quota, at least --max-block)."),
            Setting.of("server-retained-space", "SIZE", null, "Most block bytes the retained transfers (evacuations)"
                    + " of one trusted server may reserve together, within --server-quota (default: half of"
                    + " --server-quota)."),
            Setting.of("ttl", "DURATION", "1h", "Drop a transfer nobody touched for this long; retained transfers are"
                    + " kept until their expiry (default: {default})."),
            Setting.of("max-retain", "DURATION", Durations.format(StoreConfig.DEFAULT_MAX_RETAIN), "Longest a server"
                    + " may have a transfer retained: kept on disk until its expiry, across restarts, for a collector"
                    + " that comes later (default: {default})."),
            Setting.of("max-block", "SIZE", new ByteSize(RelayLimits.DEFAULT_MAX_BLOCK_BYTES).toString(),
                    "Largest block accepted (default: {default})."),
            Setting.of("socket-buffer", "SIZE", "0", "Fix both socket buffers of every connection at SIZE, e.g. 8M,"
                    + " turning off the kernel's autotuning (capped by net.core.rmem_max / wmem_max; default:"
                    + " {default}, autotuning)."),
            Setting.of("max-connections", "N", String.valueOf(LIMITS.maxConnections()), "Connections served at once"
                    + " (default: {default})."),
            Setting.of("max-unauthenticated-per-address", "N", String.valueOf(LIMITS.maxUnauthenticatedPerAddress()),
                    "Connections from one IP address (an IPv6 address: its /64) that have not yet authenticated (a"
                            + " trusted server's certificate, or a client's accepted token); more are closed at once"
                            + " (default: {default})."),
            Setting.of("max-client-connections-per-address", "N",
                    String.valueOf(LIMITS.maxClientConnectionsPerAddress()), "Client connections holding an accepted"
                            + " token from one IP address (IPv6: one /64); one more is refused and closed (default:"
                            + " {default})."),
            Setting.of("max-connections-per-transfer", "N", String.valueOf(LIMITS.maxConnectionsPerTransfer()),
                    "Client connections holding a token for one transfer; one more is refused and closed (default:"
                            + " {default})."),
            Setting.of("server-connections", "N", null, "Of --max-connections, the ones kept for trusted servers:"
                    + " client connections holding tokens never take them (default: a sixteenth of --max-connections)."),
            Setting.of("auth-timeout", "DURATION", Durations.format(LIMITS.authTimeout()), "Close a connection that has"
                    + " not authenticated this long after it was accepted (default: {default})."),
            Setting.of("idle-timeout", "DURATION", Durations.format(LIMITS.idleTimeout()), "Close an authenticated"
                    + " connection silent for this long (default: {default})."),
            Setting.of("max-refusals", "N", String.valueOf(LIMITS.maxRefusals()), "Close a connection without a"
                    + " trusted server certificate once this many of its requests were refused (default: {default})."),
            Setting.flag("verify-blocks", true, "Refuse pushed blocks whose wire checksum or header is wrong (default:"
                    + " on; --no-verify-blocks stores any bytes).").withNegation(),
            Setting.flag("accept-clear-blocks", false, "Also store blocks that are not encrypted (default: refuse them,"
                    + " so the relay never holds plaintext)."),
            Setting.of("metrics", "HOST:PORT", null, "Serve Prometheus metrics at http://HOST:PORT/metrics (plain HTTP,"
                    + " no authentication: bind it where only the scraper reaches, e.g. 127.0.0.1:9464; default:"
                    + " none)."),
            Setting.of("rate-limit", "RATE", "0", "Most bytes per second the relay sends in all (to clients: Netty's"
                    + " global traffic shaping of every connection), and most block bytes per second it receives in"
                    + " all (from servers), e.g. 50M (default: {default}, none)."),
            Setting.of("rate-limit-per-transfer", "RATE", "0", "Most block bytes per second one transfer's GETs get,"
                    + " over all its client connections together, and most its PUTs bring, e.g. 10M (default:"
                    + " {default}, none)."),
            Setting.of("meridian", "HOST:PORT", null, "Join the Meridian overlay on this UDP address, so servers can"
                    + " find the relay by RTT (default with --meridian-bootstrap: the --listen address and port). Same"
                    + " IP as --listen; port 0 picks a free one."),
            Setting.of("meridian-bootstrap", "HOST:PORT", null, "Meridian node to join the overlay through"
                    + " (repeatable); implies --meridian.")));

    /**
     * Where the relay serves and whom it trusts.
     *
     * @param listen where servers and clients connect; required to serve
     * @param store the directory for spilled blocks and retained transfers; required to serve
     * @param trustServer the fingerprints of the servers whose blocks the relay takes, beside those joined
     * @param stateDir where the certificate and key are kept (empty: {@code ~/.fsp/relay})
     * @param socketBuffer 0: the kernel's autotuning
     * @param meridian empty: no Meridian node, unless {@code meridian-bootstrap} is given (then the listen address)
     * @param metrics where to serve Prometheus metrics (empty: nowhere, no port opened)
     */
    public record Serving(Optional<HostPort> listen, Optional<Path> store, List<Fingerprint> trustServer,
                          Optional<Path> stateDir, ByteSize socketBuffer, boolean verifyBlocks,
                          boolean acceptClearBlocks, Optional<HostPort> meridian, List<HostPort> meridianBootstrap,
                          Optional<HostPort> metrics) {
        public Serving {
            trustServer = List.copyOf(trustServer);
            meridianBootstrap = List.copyOf(meridianBootstrap);
            SocketBuffers.check("socket-buffer", socketBuffer.bytes());
            for (HostPort peer : meridianBootstrap) {
                if (peer.port() == 0) {
                    throw new IllegalArgumentException("meridian-bootstrap: " + peer + ": port 0 (expected: 1..65535)");
                }
            }
        }
    }

    /**
     * What the relay holds, and how long.
     *
     * @param serverQuota empty: all of {@code quota}
     * @param transferSpace empty: an eighth of the server quota, at least {@code max-block}
     * @param serverRetainedSpace empty: half the server quota
     */
    public record Space(ByteSize quota, ByteSize memory, Optional<ByteSize> serverQuota,
                        Optional<ByteSize> transferSpace, Optional<ByteSize> serverRetainedSpace, Duration ttl,
                        Duration maxRetain, ByteSize maxBlock) {
        public Space {
            if (maxBlock.bytes() < 1 || maxBlock.bytes() > LARGEST_BLOCK.bytes()) {
                throw new IllegalArgumentException("max-block: " + maxBlock + " (expected: 1.." + LARGEST_BLOCK + ")");
            }
            Durations.requirePositive("ttl", ttl);
            Durations.requirePositive("max-retain", maxRetain);
        }
    }

    /** Limits on connections, before and after they authenticate ({@link ConnectionPolicy}). */
    public record Connections(int maxConnections, int maxUnauthenticatedPerAddress, int maxClientConnectionsPerAddress,
                              int maxConnectionsPerTransfer, Optional<Integer> serverConnections, Duration authTimeout,
                              Duration idleTimeout, int maxRefusals) {
        public Connections {
            policy(maxConnections, maxUnauthenticatedPerAddress, authTimeout, idleTimeout, maxRefusals,
                    maxClientConnectionsPerAddress, maxConnectionsPerTransfer, serverConnections);
        }

        ConnectionPolicy policy() {
            return policy(maxConnections, maxUnauthenticatedPerAddress, authTimeout, idleTimeout, maxRefusals,
                    maxClientConnectionsPerAddress, maxConnectionsPerTransfer, serverConnections);
        }

        private static ConnectionPolicy policy(int maxConnections, int maxUnauthenticatedPerAddress,
                Duration authTimeout, Duration idleTimeout, int maxRefusals, int maxClientConnectionsPerAddress,
                int maxConnectionsPerTransfer, Optional<Integer> serverConnections) {
            return new ConnectionPolicy(maxConnections, maxUnauthenticatedPerAddress, authTimeout, idleTimeout,
                    maxRefusals, maxClientConnectionsPerAddress, maxConnectionsPerTransfer,
                    serverConnections.orElse(ConnectionPolicy.defaultServerConnections(maxConnections)));
        }
    }

    /**
     * Bandwidth caps.
     *
     * @param rateLimit bytes per second the relay sends in all, and block bytes it receives in all (0: no cap)
     * @param rateLimitPerTransfer block bytes per second of one transfer, each direction (0: no cap)
     */
    public record Rates(ByteSize rateLimit, ByteSize rateLimitPerTransfer) {
    }

    /** Every setting at its declared default. */
    public static RelaySettings defaults() {
        return ALL.defaults();
    }

    /** The defaults, then {@code file} if given, then the options on the command line. */
    public static RelaySettings load(Optional<Path> file, ConfigSource commandLine) {
        return ALL.load(file.map(ConfigSource::read).orElse(ConfigSource.empty("defaults")), commandLine);
    }

    /** Where the certificate and key live: {@code state-dir}, else {@code ~/.fsp/relay}. */
    public Path effectiveStateDir() {
        return serving.stateDir().orElseGet(() -> Path.of(System.getProperty("user.home"), ".fsp", "relay"));
    }

    /** The keys a relay cannot serve without, as options ({@code --listen=HOST:PORT}); empty when all are set. */
    public List<String> missingForServing() {
        List<String> missing = new java.util.ArrayList<>();
        if (serving.listen().isEmpty()) {
            missing.add("--listen=HOST:PORT");
        }
        if (serving.store().isEmpty()) {
            missing.add("--store=DIR");
        }
        return missing;
    }

    /**
     * The running relay's configuration, with its certificate and key; the settings must name {@code listen} and
     * {@code store} ({@link #missingForServing()}).
     *
     * @throws IllegalArgumentException where the settings do not fit together, naming the options
     */
    public RelayConfig toConfig(KeyMaterial identity) {
        if (!missingForServing().isEmpty()) {
            throw new IllegalArgumentException("missing: " + String.join(", ", missingForServing()));
        }
        long maxDirect = PlatformDependent.maxDirectMemory();
        ByteSize quota = space.quota();
        ByteSize memory = space.memory();
        if (Math.min(memory.bytes(), quota.bytes()) > maxDirect * 3 / 4) {
            throw new IllegalArgumentException("--memory " + memory + ": more than 3/4 of the JVM's direct memory ("
                    + maxDirect + " bytes); lower --memory or raise -XX:MaxDirectMemorySize in FSP_JAVA_OPTS");
        }
        long maxBlock = space.maxBlock().bytes();
        long serverQuotaBytes = space.serverQuota().orElse(quota).bytes();
        long transferSpaceBytes = space.transferSpace().map(ByteSize::bytes)
                .orElseGet(() -> StoreConfig.defaultTransferSpace(serverQuotaBytes, maxBlock));
        StoreConfig storeConfig = new StoreConfig(serving.store().orElseThrow(), quota.bytes(), memory.bytes(),
                space.ttl(), serverQuotaBytes, transferSpaceBytes, space.maxRetain(), space.serverRetainedSpace()
                        .map(ByteSize::bytes).orElseGet(() -> StoreConfig.defaultServerRetainedSpace(serverQuotaBytes)));
        Set<Fingerprint> trusted = new HashSet<>(serving.trustServer());
        return new RelayConfig(serving.listen().orElseThrow().toSocketAddress(), storeConfig, identity, trusted,
                new RelayLimits((int) maxBlock), connections.policy(), serving.verifyBlocks(),
                serving.acceptClearBlocks(), ConnectionHandlers.NONE, Clock.systemUTC(),
                (int) serving.socketBuffer().bytes(), serving.metrics().map(HostPort::toSocketAddress),
                new RateLimits(rates.rateLimit().bytes(), rates.rateLimitPerTransfer().bytes()),
                Optional.of(effectiveStateDir()));
    }
}

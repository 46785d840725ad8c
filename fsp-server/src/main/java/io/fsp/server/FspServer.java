package io.fsp.server;

import io.fsp.block.stage.Encryptor;
import io.fsp.config.ConfigException;
import io.fsp.crypto.NativeCrypto;
import io.fsp.metrics.MetricsEndpoint;
import io.fsp.net.HostPort;
import io.fsp.server.auth.LoginThrottle;
import io.fsp.server.auth.PasswordHasher;
import io.fsp.server.auth.UserAccount;
import io.fsp.server.auth.UserStore;
import io.fsp.server.collect.Leftovers;
import io.fsp.server.config.ServerConfig;
import io.fsp.server.ftp.ConnectionLimits;
import io.fsp.server.ftp.FtpCommands;
import io.fsp.server.ftp.FtpServerContext;
import io.fsp.server.ftp.FtpServerInitializer;
import io.fsp.server.ftp.PassivePorts;
import io.fsp.server.ftp.command.StandardCommands;
import io.fsp.server.fsp.FspVerbs;
import io.fsp.server.join.JoinService;
import io.fsp.server.join.JoinedRelays;
import io.fsp.server.join.ServedRelays;
import io.fsp.server.join.StateWatch;
import io.fsp.server.select.CollectRelay;
import io.fsp.server.select.OverlaySelection;
import io.fsp.server.select.RelayEndpoint;
import io.fsp.server.stripe.RetainGrant;
import io.fsp.server.stripe.StripeContext;
import io.fsp.tls.Certificates;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.KeyMaterial;
import io.fsp.tls.SslContexts;
import io.fsp.tls.TlsWarmUp;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running FSP server: the FTP/FTPS listeners, their event loops and the executor for blocking work.
 * Start one with {@link #start(ServerConfig)} (in-process, as tests do, or from {@link ServerCommand}),
 * read where it listens from {@link #addresses()}, stop it with {@link #close()}.
 */
public final class FspServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FspServer.class);
    private static final String CERT_FILE = "server-cert.pem";
    private static final String KEY_FILE = "server-key.pem";
    private static final int BLOCKING_QUEUE = 4096;
    /** Logins waiting for a login thread, at most; one more is answered 421. */
    private static final int LOGIN_QUEUE = 64;
    /** Bytes of requests one read of a control connection takes at most: bounds the lines decoded at once. */
    private static final int CONTROL_READ_BUFFER = 4096;
    /** The kernel's receive buffer of a control connection: requests are short lines, never a stream. */
    private static final int CONTROL_SOCKET_RECEIVE_BUFFER = 16 * 1024;

    static {
        // lftp sends the IP literal it connects to ("::1") as TLS server name, which RFC 6066 §3 forbids,
        // and the JDK then refuses the whole handshake. The server has one certificate and needs no server
        // name, so it ignores the extension. JSSE reads this once, when its first SSL context is made.
        if (System.getProperty("jdk.tls.server.disableExtensions") == null) {
            System.setProperty("jdk.tls.server.disableExtensions", "server_name");
        }
    }

    private final EventLoopGroup bossGroup;
    private final EventLoopGroup workerGroup;
    private final List<Channel> listeners;
    private final FtpServerContext context;
    private final StripeContext stripe;
    private final MetricsEndpoint metrics;
    private final ServedRelays relays;
    private final StateWatch watch;

    private FspServer(EventLoopGroup bossGroup, EventLoopGroup workerGroup, List<Channel> listeners,
                      FtpServerContext context, StripeContext stripe, MetricsEndpoint metrics, ServedRelays relays,
                      StateWatch watch) {
        this.metrics = metrics;
        this.relays = relays;
        this.watch = watch;
        this.stripe = stripe;
        this.bossGroup = bossGroup;
        this.workerGroup = workerGroup;
        this.listeners = listeners;
        this.context = context;
    }

    /**
     * Loads or creates the TLS certificate, reads the users, binds every listen address and returns once
     * all of them accept connections.
     *
     * @throws ConfigException settings that do not fit together (no users, a user without a root), a bad users file
     * @throws IOException what this machine refuses: an address in use, an unreadable certificate or users file
     */
    public static FspServer start(ServerConfig config) throws IOException, InterruptedException {
        return start(config, StandardCommands.create());
    }

    /**
     * As {@link #start(ServerConfig)}, with the given command registry: the standard commands plus
     * extensions (the FSP striped-transfer commands register here).
     */
    public static FspServer start(ServerConfig config, FtpCommands commands) throws IOException, InterruptedException {
        NativeCrypto.loadInBackground();
        NativeCrypto.preferForJdkTls();
        Encryptor.warmUpInBackground();
        PasswordHasher.warmUpInBackground();
        KeyMaterial key = loadKey(config);
        SslContext ssl = SslContexts.server(key);
        TlsWarmUp.inBackground(ssl);
        UserStore users = users(config);
        if (users.size() == 0) {
            throw new ConfigException("no users: give --user NAME:PASSWORD, --users-file FILE or --anonymous (options, or"
                    + " keys of the --config file)");
        }
        Optional<InetAddress> announce = config.network().announceAddress().isPresent()
                ? Optional.of(InetAddress.getByName(config.network().announceAddress().get())) : Optional.empty();
        ExecutorService blocking = executor("fsp-blocking-", config.limits().blockingThreads(), BLOCKING_QUEUE);
        ExecutorService logins = executor("fsp-login-", config.limits().loginThreads(), LOGIN_QUEUE);
        JoinedRelays joined = new JoinedRelays(config.effectiveStateDir());
        List<RelayEndpoint> startRelays = JoinedRelays.merge(config.striping().relay(), joined.list());
        StripeContext stripe = new StripeContext(key, startRelays, !config.tls().fspWithoutTls(),
                config.striping().maxBlocksPerTransfer(), config.socketBufferBytes(), !config.striping().relayBlocksOverTls(), config.striping().maxRetain(),
                config.striping().retainUser(), config.striping().digestCache().bytes(), config.striping().maxPlanned());
        stripe.collectRelays(config.collection().collectRelay(), Set.copyOf(config.striping().trustRelay()));
        if (config.striping().meridian().isPresent() || config.striping().meridianEntry().isPresent()) {
            InetSocketAddress bind = config.striping().meridian().map(HostPort::toSocketAddress)
                    .orElseGet(() -> new InetSocketAddress(config.network().listen().get(0).toSocketAddress().getAddress(), 0));
            try {
                stripe.overlay(OverlaySelection.start(bind, config.striping().meridianEntry().map(HostPort::toSocketAddress),
                        stripe::relays, stripe::trustedRelays, config.striping().trustOverlayRelays(),
                        config.striping().relaySelectionTimeout()));
            } catch (RuntimeException e) { // a ConfigException, or a bug; a port in use is an IOException
                stripe.close();
                shutdownNow(blocking, logins);
                throw e;
            }
        }
        stripe.warmRelayConnections();
        ServedRelays relays = new ServedRelays(joined, config.striping().relay(), stripe::relays);
        FspVerbs.register(commands, stripe, config, new JoinService(config.effectiveStateDir(), key.fingerprint(),
                relays::joinedChanged, Clock.systemUTC()));
        FtpServerContext context = new FtpServerContext(config.ftpCore(), ssl, SslContexts.serverWithoutSessionTickets(key),
                key.fingerprint(), users,
                new LoginThrottle(config.limits().loginFailureDelay()), commands, blocking, logins,
                new ConnectionLimits(config.limits().maxConnections(), config.limits().maxConnectionsPerAddress()),
                new PassivePorts(config.network().passivePorts()), announce);
        context.metrics().digestsReused(stripe::digestsReused);
        context.metrics().planned(stripe.planBudget()::held, stripe.planBudget().limit());
        EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        EventLoopGroup workers = new MultiThreadIoEventLoopGroup(config.limits().ioThreads(), NioIoHandler.newFactory());
        List<Channel> listeners = new ArrayList<>();
        MetricsEndpoint metrics = null;
        try {
            ServerBootstrap bootstrap = new ServerBootstrap()
                    .group(boss, workers)
                    .channel(NioServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, 128)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    // A control connection holds at most this many reply bytes unsent before it stops reading
                    // (FtpControlHandler), so a client that never reads costs a bounded amount of memory. Fixed
                    // socket buffers keep the kernel from growing them to megabytes, which a flood of pipelined
                    // HELP would fill (with replies made at the cost of CPU) before back-pressure began.
                    .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                            new WriteBufferWaterMark(config.limits().controlWriteBuffer() / 2, config.limits().controlWriteBuffer()))
                    .childOption(ChannelOption.SO_SNDBUF, config.limits().controlWriteBuffer())
                    .childOption(ChannelOption.SO_RCVBUF, CONTROL_SOCKET_RECEIVE_BUFFER)
                    .childOption(ChannelOption.RCVBUF_ALLOCATOR,
                            new AdaptiveRecvByteBufAllocator(64, 1024, CONTROL_READ_BUFFER))
                    .childHandler(new FtpServerInitializer(context));
            for (HostPort address : config.network().listen()) {
                try {
                    listeners.add(bootstrap.bind(address.toSocketAddress()).sync().channel());
                } catch (Exception e) {
                    throw new IOException("--listen " + address + ": cannot bind (" + e.getMessage() + ")", e);
                }
            }
            if (config.network().metrics().isPresent()) {
                metrics = MetricsEndpoint.start(config.network().metrics().get().toSocketAddress(), context.metrics().registry());
            }
        } catch (IOException | RuntimeException e) {
            listeners.forEach(Channel::close);
            boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            shutdownNow(blocking, logins);
            stripe.close();
            throw e;
        }
        StateWatch watch = null;
        try {
            watch = StateWatch.start(config.effectiveStateDir(), relays::joinedChanged);
        } catch (IOException e) {
            log.warn("not watching {} ({}): fsp-server invite and relays remove take effect at the next start",
                    config.effectiveStateDir(), e.toString());
        }
        FspServer server = new FspServer(boss, workers, listeners, context, stripe, metrics, relays, watch);
        sweepLeftovers(config);
        for (InetSocketAddress a : server.addresses()) {
            log.info("listening on {} (certificate sha256 {})", HostPort.format(a), key.fingerprint());
        }
        return server;
    }

    /**
     * Removes in the background what FCOL collections of an earlier process left in users' roots (those that died
     * with it): the work directories are listed now, so the collections this process runs are not among them.
     */
    private static void sweepLeftovers(ServerConfig config) {
        try {
            List<Path> works = Leftovers.find(config.effectiveStateDir().resolve("fcol"));
            if (!works.isEmpty()) {
                Thread t = new Thread(() -> Leftovers.sweep(works), "fsp-fcol-sweep");
                t.setDaemon(true);
                t.start();
            }
        } catch (IOException e) {
            log.warn("FCOL leftovers not swept: {}", e.toString());
        }
    }

    /**
     * The TLS certificate and key: the configured files, else those in the state directory, generated there on
     * first use. Serving and {@code fsp-server fingerprint} both take them from here.
     */
    static KeyMaterial loadKey(ServerConfig config) throws IOException {
        if (config.tls().certificate().isPresent()) {
            return Certificates.load(config.tls().certificate().get(), config.tls().privateKey().orElseThrow());
        }
        Path dir = config.effectiveStateDir();
        return Certificates.loadOrCreate(dir.resolve(CERT_FILE), dir.resolve(KEY_FILE), "fsp-server");
    }

    /** The password of {@code --user NAME}: from {@code $FSP_PASSWORD_NAME}, else asked on the terminal. */
    static String passwordOf(String name) {
        String variable = passwordVariable(name);
        String env = System.getenv(variable);
        if (env != null && !env.isEmpty()) {
            return env;
        }
        java.io.Console console = System.console();
        if (console != null) {
            char[] typed = console.readPassword("password for %s: ", name);
            if (typed != null && typed.length > 0) {
                return new String(typed);
            }
        }
        throw new ConfigException("--user " + name + ": no password (expected: $" + variable
                + " set, or a terminal to type it on, or --user " + name + ":PASSWORD)");
    }

    static String passwordVariable(String name) {
        return "FSP_PASSWORD_" + name.toUpperCase(java.util.Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }

    /** The accounts of {@code user}, {@code users-file} and {@code anonymous}; one the rules refuse is a {@link ConfigException}. */
    private static UserStore users(ServerConfig config) throws IOException {
        List<UserAccount> accounts = new ArrayList<>();
        for (String spec : config.access().user()) {
            int colon = spec.indexOf(':');
            String name = colon < 0 ? spec : spec.substring(0, colon);
            Path root = config.access().root().orElseThrow(() -> new ConfigException(
                    "--user " + name + ": needs --root DIR (the directory users see)"));
            String password = colon < 0 ? passwordOf(name) : spec.substring(colon + 1);
            String hash = PasswordHasher.hash(password);
            try {
                accounts.add(new UserAccount(name, hash, root, true));
            } catch (IllegalArgumentException e) { // the name
                throw new ConfigException("--user: " + e.getMessage(), e);
            }
        }
        if (config.access().usersFile().isPresent()) {
            accounts.addAll(UserStore.readFile(config.access().usersFile().get(), config.access().root().orElse(null)));
        }
        Optional<UserAccount> anonymous = Optional.empty();
        if (config.access().anonymous()) {
            Path root = config.access().root().orElseThrow(() -> new ConfigException("--anonymous: needs --root DIR"));
            anonymous = Optional.of(new UserAccount(UserAccount.ANONYMOUS, "", root, false));
        }
        try {
            return new UserStore(accounts, anonymous);
        } catch (IllegalArgumentException e) { // a name given twice
            throw new ConfigException(e.getMessage(), e);
        }
    }

    private static void shutdownNow(ExecutorService... executors) {
        for (ExecutorService e : executors) {
            e.shutdownNow();
        }
    }

    private static ExecutorService executor(String name, int threads, int queue) {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor executor = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(queue), r -> {
                    Thread t = new Thread(r, name + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }

    /** The bound addresses, in the order of the {@code listen} setting (port 0 replaced by the real port). */
    public List<InetSocketAddress> addresses() {
        return listeners.stream().map(c -> (InetSocketAddress) c.localAddress()).toList();
    }

    /** The SHA-256 fingerprint of the server's TLS certificate, for clients to pin. */
    public Fingerprint fingerprint() {
        return context.fingerprint();
    }

    /** The static relay list that new striped transfers use. */
    public List<RelayEndpoint> relays() {
        return stripe.relays();
    }

    /**
     * Replaces the configured relays while the server runs (the joined ones stay): transfers under way keep their
     * relays, new ones use the new list, and the kept connections of relays no longer listed are closed once idle.
     */
    public void relays(List<RelayEndpoint> relays) {
        this.relays.configured(relays);
    }

    /** The {@code relay} lines of the configuration in use; {@link #relays()} adds the joined relays. */
    public List<RelayEndpoint> configuredRelays() {
        return relays.configured();
    }

    /**
     * Replaces the {@code collect-relay} lines and the {@code trust-relay} fingerprints while the server runs: the next
     * FCOL and the next selection over the overlay are judged by them.
     */
    public void collectRelays(List<CollectRelay> allowed, List<Fingerprint> trusted) {
        stripe.collectRelays(allowed, Set.copyOf(trusted));
    }

    /** Replaces the {@code retain-user} lines while the server runs: the next FSPO retain is judged by them. */
    public void retainGrants(List<RetainGrant> grants) {
        stripe.retainGrants(grants);
    }

    /** Where the metrics endpoint listens; empty without the {@code metrics} setting. */
    public Optional<InetSocketAddress> metricsAddress() {
        return Optional.ofNullable(metrics).map(MetricsEndpoint::address);
    }

    /** The shared state of the running server (configuration, users, command registry). */
    public FtpServerContext context() {
        return context;
    }

    /** Stops accepting, closes every connection, and waits briefly for the event loops to finish. */
    @Override
    public void close() {
        if (watch != null) {
            watch.close();
        }
        listeners.forEach(Channel::close);
        if (metrics != null) {
            metrics.close();
        }
        bossGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        workerGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        shutdownNow(context.blocking(), context.logins());
        stripe.close();
        log.info("stopped");
    }
}

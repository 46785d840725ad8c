package io.fsp.server.metrics;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.util.concurrent.Future;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.GaugeDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.LongConsumer;

/**
 * Everything the server counts, in one registry that the {@code metrics} setting serves (docs/operating.md,
 * "Metrics"). The control and data pipelines and the FSP commands call the event methods where the events happen;
 * open connections are read when a scrape asks. Counting is always on: a counter is one atomic add, and a server
 * without {@code metrics} simply serves nobody its numbers.
 */
public final class ServerMetrics {
    /** Striped transfers take from milliseconds (a small file) to hours. */
    private static final double[] FRET_SECONDS = {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600,
            1800, 3600, 3 * 3600, 12 * 3600};

    /** Distinct user names labelled in {@code fsp_server_user_sent_bytes}; memory stays bounded however many log in. */
    public static final int MAX_USER_LABELS = 64;
    /** The label of every user past the first {@link #MAX_USER_LABELS}: no account name can look like it. */
    public static final String OTHER_USERS = "(other)";
    /** The paths of {@code fsp_server_sent_bytes}. */
    public static final String RELAY = "relay";
    public static final String DIRECT = "direct";
    public static final String ORIGIN = "origin";
    public static final String FTP = "ftp";

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Counter dataReceived = Counter.builder().name("fsp_server_data_received_bytes")
            .help("Bytes received on FTP data connections (uploads; TLS records as they arrive)").unit(Unit.BYTES)
            .withoutExemplars().register(registry);
    private final Counter dataSent = Counter.builder().name("fsp_server_data_sent_bytes")
            .help("Bytes sent on FTP data connections (downloads, listings, FRET's direct blocks; TLS records as they"
                    + " go)").unit(Unit.BYTES).withoutExemplars().register(registry);
    private final Counter logins = Counter.builder().name("fsp_server_logins")
            .help("Logins (PASS), by result: ok or failed").labelNames("result").withoutExemplars().register(registry);
    private final Counter refused = Counter.builder().name("fsp_server_connections_refused")
            .help("Control connections answered 421 and closed at once (max-connections, max-connections-per-address)")
            .withoutExemplars().register(registry);
    private final Counter errors = Counter.builder().name("fsp_server_ftp_errors")
            .help("Error replies sent, by class (4xx transient, 5xx permanent) and code").labelNames("class", "code")
            .withoutExemplars().register(registry);
    private final Counter striped = Counter.builder().name("fsp_server_striped_transfers")
            .help("Striped transfers (FRET), by event: started, completed (226), failed").labelNames("event")
            .withoutExemplars().register(registry);
    private final Gauge stripedOpen = Gauge.builder().name("fsp_server_striped_transfers_open")
            .help("Striped transfers under way (FRET between its 150 and its final reply)").withoutExemplars()
            .register(registry);
    private final Counter blocks = Counter.builder().name("fsp_server_blocks_placed")
            .help("Blocks of completed striped transfers, by where they went: relay, direct (the client's data"
                    + " connection), origin (left for the client to fetch with FGET), have (the client had them)")
            .labelNames("target").withoutExemplars().register(registry);
    private final Histogram fretSeconds = Histogram.builder().name("fsp_server_fret_duration_seconds")
            .help("Time from a FRET's arrival to its 226: planning, opening the transfer at the relays, placing every"
                    + " block").unit(Unit.SECONDS).classicOnly().classicUpperBounds(FRET_SECONDS).withoutExemplars()
            .register(registry);
    private final Counter sent = Counter.builder().name("fsp_server_sent_bytes")
            .help("Payload bytes the server delivered, by path: relay (sealed blocks stored by a relay, each replica),"
                    + " direct (sealed blocks written to FRET's data connection), origin (sealed blocks written for"
                    + " FGET), ftp (RETR file bytes written to the data connection); TLS not counted")
            .unit(Unit.BYTES).labelNames("path").withoutExemplars().register(registry);
    private final Counter userSent = Counter.builder().name("fsp_server_user_sent_bytes")
            .help("fsp_server_sent_bytes by the logged-in user it was sent for; the first " + MAX_USER_LABELS
                    + " user names get labels of their own, any later one counts under " + OTHER_USERS)
            .unit(Unit.BYTES).labelNames("user", "path").withoutExemplars().register(registry);
    private final Gauge ftpOpen = Gauge.builder().name("fsp_server_ftp_transfers_open")
            .help("FTP data transfers under way (150 sent, final reply not yet), by direction: send (RETR, listings,"
                    + " FGET), receive (STOR, APPE, STOU, FCOL); FRET's own are fsp_server_striped_transfers_open")
            .labelNames("direction").withoutExemplars().register(registry);
    private final int maxUserLabels;
    /** The user names that have labels of their own: at most {@link #maxUserLabels}, never removed. */
    private final Set<String> labelledUsers = ConcurrentHashMap.newKeySet();
    private final DataBytes dataBytes = new DataBytes();

    /** @param connections the control connections open now */
    public ServerMetrics(IntSupplier connections) {
        this(connections, MAX_USER_LABELS);
    }

    /** @param maxUserLabels how many distinct user names get labels of their own (the rest: {@link #OTHER_USERS}) */
    ServerMetrics(IntSupplier connections, int maxUserLabels) {
        this.maxUserLabels = maxUserLabels;
        for (String path : new String[] {RELAY, DIRECT, ORIGIN, FTP}) {
            sent.labelValues(path);
        }
        for (String direction : new String[] {"send", "receive"}) {
            ftpOpen.labelValues(direction);
        }
        GaugeWithCallback.builder().name("fsp_server_connections").help("Control connections open now")
                .callback(c -> c.call(connections.getAsInt())).register(registry);
        for (String result : new String[] {"ok", "failed"}) {
            logins.labelValues(result);
        }
        for (String event : new String[] {"started", "completed", "failed"}) {
            striped.labelValues(event);
        }
    }

    /** Counts, as {@code reused}, the blocks sealed with a plaintext digest kept from an earlier transfer. */
    public void digestsReused(LongSupplier reused) {
        CounterWithCallback.builder().name("fsp_server_block_digests_reused")
                .help("Blocks of striped transfers sealed with the plaintext digest kept from an earlier transfer of the"
                        + " same, unchanged file (digest-cache), not hashed again")
                .callback(c -> c.call(reused.getAsLong())).register(registry);
    }

    /** The files and directories the plans of striped transfers hold now, and the most they may ({@code max-planned}). */
    public void planned(LongSupplier held, long limit) {
        GaugeWithCallback.builder().name("fsp_server_planned_entries")
                .help("Files and directories held by the plans of striped transfers: running ones, and finished ones"
                        + " kept for re-fetches (FGET)")
                .callback(c -> c.call(held.getAsLong())).register(registry);
        GaugeWithCallback.builder().name("fsp_server_planned_entries_limit")
                .help("The most files and directories the plans of striped transfers may hold at once (max-planned);"
                        + " a FRET that needs more while running transfers hold them is answered 450")
                .callback(c -> c.call(limit)).register(registry);
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    public void login(boolean ok) {
        logins.labelValues(ok ? "ok" : "failed").inc();
    }

    public void connectionRefused() {
        refused.inc();
    }

    /** A reply went out; 4xx and 5xx count as errors. */
    public void reply(int code) {
        if (code >= 400) {
            errors.labelValues(code / 100 + "xx", Integer.toString(code)).inc();
        }
    }

    /** Counts the bytes of a data connection; the first handler of its pipeline, nearest the socket. */
    public ChannelDuplexHandler dataBytes() {
        return dataBytes;
    }

    /**
     * A FRET that arrived at {@code arrivedNanos} is striping until {@code done} completes; {@code placed} then says
     * where its blocks went ({@code relay:0}, {@code direct}, {@code origin}, {@code have} and their counts).
     */
    public void striping(long arrivedNanos, Future<?> done, java.util.function.Supplier<Map<String, Integer>> placed) {
        striped.labelValues("started").inc();
        stripedOpen.inc();
        done.addListener(f -> {
            stripedOpen.dec();
            if (!f.isSuccess()) {
                striped.labelValues("failed").inc();
                return;
            }
            striped.labelValues("completed").inc();
            fretSeconds.observe((System.nanoTime() - arrivedNanos) / 1e9);
            placed.get().forEach((target, n) -> {
                int colon = target.indexOf(':');
                blocks.labelValues(colon < 0 ? target : target.substring(0, colon)).inc(n);
            });
        });
    }

    /**
     * Where the bytes of one path for one user are counted: the label lookups done once, each {@link Sent#accept}
     * two atomic adds. {@code user} is the logged-in account's name (null: nobody logged in, counted as
     * {@link #OTHER_USERS}).
     */
    public Sent sent(String path, String user) {
        return new Sent(sent.labelValues(path), userSent.labelValues(userLabel(user), path));
    }

    /** {@code user} if it has, or can still get, a label of its own; else {@link #OTHER_USERS}. */
    String userLabel(String user) {
        if (user == null) {
            return OTHER_USERS;
        }
        if (labelledUsers.contains(user)) {
            return user;
        }
        synchronized (labelledUsers) {
            if (labelledUsers.size() < maxUserLabels) {
                labelledUsers.add(user);
                return user;
            }
        }
        return OTHER_USERS;
    }

    /** Bytes of one path sent for one user; thread-safe. */
    public static final class Sent implements LongConsumer {
        private final CounterDataPoint path;
        private final CounterDataPoint user;

        private Sent(CounterDataPoint path, CounterDataPoint user) {
            this.path = path;
            this.user = user;
        }

        @Override
        public void accept(long bytes) {
            if (bytes > 0) {
                path.inc(bytes);
                user.inc(bytes);
            }
        }
    }

    /**
     * An FTP data transfer (not FRET's) sent its 150: it is under way until the transfer runs what this returns,
     * once, with its final reply.
     *
     * @param upload whether the client sends the data
     */
    public Runnable ftpTransfer(boolean upload) {
        GaugeDataPoint open = ftpOpen.labelValues(upload ? "receive" : "send");
        open.inc();
        return open::dec;
    }

    @Sharable
    private final class DataBytes extends ChannelDuplexHandler {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf b) {
                dataReceived.inc(b.readableBytes());
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            long bytes = msg instanceof ByteBuf b ? b.readableBytes()
                    : msg instanceof ByteBufHolder h ? h.content().readableBytes()
                    : msg instanceof FileRegion r ? r.count() - r.transferred() : 0;
            if (bytes > 0) {
                dataSent.inc(bytes);
            }
            ctx.write(msg, promise);
        }
    }
}

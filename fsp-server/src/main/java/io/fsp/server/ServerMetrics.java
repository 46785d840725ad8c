package io.fsp.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.util.concurrent.Future;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * Everything the server counts, in one registry that the {@code metrics} setting serves (docs/architecture.md,
 * "Metrics"). The control and data pipelines and the FSP commands call the event methods where the events happen;
 * open connections are read when a scrape asks. Counting is always on: a counter is one atomic add, and a server
 * without {@code metrics} simply serves nobody its numbers.
 */
public final class ServerMetrics {
    /** Striped transfers take from milliseconds (a small file) to hours. */
    private static final double[] FRET_SECONDS = {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600,
            1800, 3600, 3 * 3600, 12 * 3600};

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
    private final DataBytes dataBytes = new DataBytes();

    /** @param connections the control connections open now */
    public ServerMetrics(IntSupplier connections) {
        GaugeWithCallback.builder().name("fsp_server_connections").help("Control connections open now")
                .callback(c -> c.call(connections.getAsInt())).register(registry);
        for (String result : new String[] {"ok", "failed"}) {
            logins.labelValues(result);
        }
        for (String event : new String[] {"started", "completed", "failed"}) {
            striped.labelValues(event);
        }
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

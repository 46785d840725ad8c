package io.fsp.relay.metrics;

import io.fsp.relay.store.BlockStore;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.function.IntSupplier;

/**
 * Everything a relay counts, in one registry that {@code --metrics HOST:PORT} serves (docs/operating.md,
 * "Metrics"). The session handler and the expiry task call the event methods where the events happen; the store's
 * holdings and the open connections are read when a scrape asks. Counting is always on: a counter is one
 * atomic add, and a relay started without {@code --metrics} simply serves nobody its numbers.
 */
public final class RelayMetrics {
    /** Store and serve times: from a millisecond (a block in memory) to a minute (a full store waits for space). */
    private static final double[] SECONDS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
            30, 60};

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Counter bytesReceived = counter("fsp_relay_put_bytes",
            "Block bytes of PUTs stored (received from servers)").unit(Unit.BYTES).register(registry);
    private final Counter bytesSent = counter("fsp_relay_get_bytes",
            "Block bytes of GETs served (sent to clients)").unit(Unit.BYTES).register(registry);
    private final Counter blocksStored = counter("fsp_relay_blocks_stored", "Blocks stored (PUT answered OK)")
            .register(registry);
    private final Counter blocksServed = counter("fsp_relay_blocks_served",
            "Blocks served (GET answered with the block)").register(registry);
    private final Counter blocksConfirmed = counter("fsp_relay_blocks_confirmed",
            "Blocks freed because their client confirmed them").register(registry);
    private final Counter transfers = counter("fsp_relay_transfers",
            "Transfers that ended or began here, by event: opened, aborted (by their server), expired (past their"
                    + " expiry, or idle beyond --ttl)").labelNames("event").register(registry);
    private final Counter errors = counter("fsp_relay_errors",
            "Requests refused and connections failed, by the ERROR code sent (docs/protocol.md §3.5)")
            .labelNames("code").register(registry);
    private final Counter refused = counter("fsp_relay_connections_refused",
            "Connections closed at accept, by the limit they met").labelNames("limit").register(registry);
    private final Histogram putSeconds = histogram("fsp_relay_put_duration_seconds",
            "Time from a PUT's arrival to its OK: checking and storing the block, and waiting for space");
    private final Histogram getSeconds = histogram("fsp_relay_get_duration_seconds",
            "Time from a GET's arrival to its block handed to the connection (reading a spilled block included)");

    /** @param connections the connections open now */
    public RelayMetrics(BlockStore store, IntSupplier connections) {
        gauge("fsp_relay_store_used_bytes", "Block bytes held, in memory and on disk", () -> store.used());
        gauge("fsp_relay_store_quota_bytes", "The most block bytes held at once (--quota)", () -> store.quota());
        gauge("fsp_relay_store_reserved_bytes", "Bytes reserved by the open transfers", () -> store.reserved());
        gauge("fsp_relay_store_memory_bytes", "Block bytes held in memory", () -> store.memoryUsed());
        gauge("fsp_relay_puts_waiting", "Blocks waiting for space in a full store (their senders held back)",
                () -> store.waiting());
        gauge("fsp_relay_transfers_open", "Transfers open now, retained ones included", () -> store.openTransfers());
        gauge("fsp_relay_transfers_retained", "Retained transfers open now (kept on disk until their expiry)",
                () -> store.retainedTransfers());
        gauge("fsp_relay_connections", "Connections open now, servers' and clients'", connections::getAsInt);
        // Each label value a scrape should show from the start, at 0: a rate over a series that appears late is lost.
        for (String event : new String[] {"opened", "aborted", "expired"}) {
            transfers.labelValues(event);
        }
        for (String limit : new String[] {"max-connections", "max-unauthenticated-per-address",
                "max-client-connections-per-address", "max-connections-per-transfer", "server-connections"}) {
            refused.labelValues(limit);
        }
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    /** A PUT was stored: {@code nanos} since it arrived. */
    public void stored(long bytes, long nanos) {
        blocksStored.inc();
        bytesReceived.inc(bytes);
        putSeconds.observe(nanos / 1e9);
    }

    /** A GET's block was handed to its connection: {@code nanos} since the GET arrived. */
    public void served(long bytes, long nanos) {
        blocksServed.inc();
        bytesSent.inc(bytes);
        getSeconds.observe(nanos / 1e9);
    }

    public void confirmed(int blocks) {
        blocksConfirmed.inc(blocks);
    }

    public void opened() {
        transfers.labelValues("opened").inc();
    }

    public void aborted() {
        transfers.labelValues("aborted").inc();
    }

    public void expired(int count) {
        transfers.labelValues("expired").inc(count);
    }

    /** An ERROR went to a peer. */
    public void error(RelayErrorCode code) {
        errors.labelValues(code.name()).inc();
    }

    /** A connection was closed at accept; {@code limit} is the relay option that refused it. */
    public void refused(String limit) {
        refused.labelValues(limit).inc();
    }

    private static Counter.Builder counter(String name, String help) {
        return Counter.builder().name(name).help(help).withoutExemplars();
    }

    private Histogram histogram(String name, String help) {
        return Histogram.builder().name(name).help(help).unit(Unit.SECONDS).classicOnly().classicUpperBounds(SECONDS)
                .withoutExemplars().register(registry);
    }

    private void gauge(String name, String help, java.util.function.DoubleSupplier value) {
        GaugeWithCallback.builder().name(name).help(help).callback(c -> c.call(value.getAsDouble())).register(registry);
    }
}

package io.fsp.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.metrics.Scrape;
import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayRefusedException;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TokenKey;
import io.fsp.token.TokenScope;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** A relay's metrics endpoint, scraped over HTTP after real traffic over TLS. */
@Timeout(120)
class RelayMetricsTest {
    @TempDir
    Path dir;

    @Test
    void countersMoveByWhatTheRelayDid() throws Exception {
        try (RelayHarness h = new RelayHarness(dir, 64L << 20, 64L << 20,
                c -> c.withMetrics(new InetSocketAddress("127.0.0.1", 0)));
             RelayConnection server = h.server(); RelayConnection client = h.client()) {
            InetSocketAddress endpoint = h.relay.metricsAddress().orElseThrow();
            Scrape before = Scrape.of(endpoint);
            assertEquals(0, before.get("fsp_relay_blocks_stored_total"));
            assertEquals(64L << 20, before.get("fsp_relay_store_quota_bytes"));
            assertEquals(0, before.get("fsp_relay_transfers_total{event=\"opened\"}"));
            assertEquals(0, before.get("fsp_relay_puts_waiting"));

            RelayHarness.Opened t = h.open(server);
            long bytes = 0;
            List<CompletableFuture<Void>> puts = new ArrayList<>();
            for (long seq = 0; seq < 10; seq++) {
                int size = 1000 + (int) seq * 10_000;
                bytes += size;
                puts.add(server.putBlock(t.id(), seq, Unpooled.wrappedBuffer(new byte[size])));
            }
            CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
            Scrape stored = Scrape.of(endpoint);
            assertEquals(bytes, stored.get("fsp_relay_store_used_bytes"));
            assertEquals(1, stored.get("fsp_relay_transfers_open"));
            assertEquals(0, stored.get("fsp_relay_transfers_retained"));
            assertTrue(stored.get("fsp_relay_store_reserved_bytes") >= bytes);
            assertTrue(stored.get("fsp_relay_connections") >= 2);

            CapabilityToken forged = CapabilityToken.issue(TokenKey.random(), t.id(), t.token().expiresAt(),
                    TokenScope.ALL);
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> client.authorize(forged).get(5, TimeUnit.SECONDS));
            assertEquals(RelayErrorCode.TOKEN_FORGED, ((RelayRefusedException) refused.getCause()).code());
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            for (long seq = 0; seq < 10; seq++) {
                ByteBuf b = client.getBlock(t.id(), seq).get(10, TimeUnit.SECONDS);
                b.release();
            }
            assertEquals(4L, client.confirm(t.id(), List.of(0L, 1L, 2L, 3L)).get(5, TimeUnit.SECONDS));
            server.abortTransfer(t.id()).get(5, TimeUnit.SECONDS);

            Scrape after = Scrape.of(endpoint);
            assertEquals(10, after.get("fsp_relay_blocks_stored_total"));
            assertEquals(bytes, after.get("fsp_relay_put_bytes_total"));
            assertEquals(10, after.get("fsp_relay_blocks_served_total"));
            assertEquals(bytes, after.get("fsp_relay_get_bytes_total"));
            assertEquals(4, after.get("fsp_relay_blocks_confirmed_total"));
            assertEquals(1, after.get("fsp_relay_transfers_total{event=\"opened\"}"));
            assertEquals(1, after.get("fsp_relay_transfers_total{event=\"aborted\"}"));
            assertEquals(0, after.get("fsp_relay_transfers_total{event=\"expired\"}"));
            assertEquals(1, after.get("fsp_relay_errors_total{code=\"TOKEN_FORGED\"}"));
            assertEquals(10, after.get("fsp_relay_put_duration_seconds_count"));
            assertEquals(10, after.get("fsp_relay_get_duration_seconds_count"));
            assertEquals(10, after.get("fsp_relay_get_duration_seconds_bucket{le=\"+Inf\"}"));
            assertEquals(0, after.get("fsp_relay_store_used_bytes"));
            assertEquals(0, after.get("fsp_relay_transfers_open"));
        }
    }

    @Test
    void expiredTransfersAreCounted() throws Exception {
        try (RelayHarness h = new RelayHarness(dir, 1L << 20, 1L << 20,
                c -> c.withMetrics(new InetSocketAddress("127.0.0.1", 0)));
             RelayConnection server = h.server()) {
            h.open(server);
            h.open(server);
            h.clock.advance(java.time.Duration.ofHours(2));
            h.relay.metrics().expired(h.relay.store().expire()); // as the relay's expiry task does
            Scrape s = Scrape.of(h.relay.metricsAddress().orElseThrow());
            assertEquals(2, s.get("fsp_relay_transfers_total{event=\"expired\"}"));
        }
    }

    @Test
    void offUnlessAskedFor() throws Exception {
        try (RelayHarness h = new RelayHarness(dir, 1L << 20, 1L << 20, c -> c)) {
            assertEquals(Optional.empty(), h.relay.metricsAddress());
            assertEquals(Optional.empty(), h.relay.config().metrics());
        }
    }

    @Test
    void commandLineServesMetricsWhereTold() throws Exception {
        RelayCommand command = new RelayCommand();
        StringWriter out = new StringWriter();
        CommandLine cmd = new CommandLine(command);
        cmd.setOut(new PrintWriter(out, true));
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> cmd.execute(
                "--listen", "127.0.0.1:0", "--store", dir.resolve("store").toString(), "--state-dir",
                dir.resolve("state").toString(), "--trust-server", RelayHarness.SERVER.fingerprint().toString(),
                "--metrics", "127.0.0.1:0", "--rate-limit", "10M", "--rate-limit-per-transfer", "512k"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (command.running == null || !out.toString().contains("metrics on")) {
            assertTrue(System.nanoTime() < deadline, "relay did not start: " + out);
            Thread.sleep(20);
        }
        try {
            Matcher m = Pattern.compile("fsp-relay: metrics on http://127\\.0\\.0\\.1:(\\d+)/metrics\\n")
                    .matcher(out.toString());
            assertTrue(m.find(), out.toString());
            assertEquals(command.running.metricsAddress().orElseThrow().getPort(), Integer.parseInt(m.group(1)));
            assertEquals(0, Scrape.of(command.running.metricsAddress().get()).get("fsp_relay_transfers_open"));
            assertEquals(new io.fsp.relay.net.RateLimits(10L << 20, 512L << 10), command.running.config().rates());
        } finally {
            command.running.close();
        }
        assertEquals(0, exit.get(10, TimeUnit.SECONDS));
    }
}

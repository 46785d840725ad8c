package io.fsp.client.collect;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.collect.BlockLifecycle.Next;
import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionCodec;
import io.fsp.tls.Fingerprint;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TokenKey;
import io.fsp.token.TokenScope;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A relay the client cannot reach is named by its address in the failure the summary counts (its retries). */
class RelaySourcesTest {
    @Test
    void aRefusedRelayConnectionNamesTheRelaysAddress() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // closed again below: nothing listens there
        }
        TransferId transfer = TransferId.random();
        CapabilityToken token = CapabilityToken.issue(TokenKey.random(), transfer, Instant.now().plusSeconds(60), TokenScope.ALL);
        TransferConditions conditions = new TransferConditions(true, 2000);
        conditions.relayAnnounced(1);
        BlockLifecycle block = new BlockLifecycle(AnnouncedBlock.of((Announcement.Block) ExtensionCodec
                .parse("BLK 7 relay:1 0 0 4096 sha256:" + "ab".repeat(32))), conditions);
        block.announced();
        CompletableFuture<Next> next = new CompletableFuture<>();
        ExecutorService fetchers = Executors.newSingleThreadExecutor();
        try (RelaySources relays = new RelaySources(1, Duration.ofSeconds(2), Duration.ofSeconds(2), true)) {
            relays.add(1, new InetSocketAddress("127.0.0.1", port), Fingerprint.parse("AB:" + "00:".repeat(30) + "CD"), token, true);
            relays.fetch(block, transfer, fetchers, new RelaySources.Outcome() {
                @Override
                public void fetched(BlockLifecycle b, ByteBuf wire, BlockSource source) {
                    wire.release();
                    next.completeExceptionally(new AssertionError("fetched from a closed port"));
                }

                @Override
                public void next(BlockLifecycle b, Next n) {
                    next.complete(n);
                }
            });
            String failures = String.join("; ", next.get(20, TimeUnit.SECONDS).failures());
            assertTrue(failures.contains("relay 127.0.0.1:" + port + ": cannot connect: connection refused"), failures);
        } finally {
            fetchers.shutdownNow();
        }
    }
}

package io.fsp.relay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayConnectionConfig;
import io.fsp.relaylink.RelayRefusedException;
import io.fsp.relay.store.StoreConfig;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Relay space over real TLS: a transfer holds no more than its server declared, and no more than the relay
 * reserves for one transfer; one server's transfers reserve no more than its share, so another server's
 * transfer still fits.
 */
@Timeout(60)
class RelaySpaceTest {
    private static final int QUOTA = 1 << 20;
    @TempDir
    Path store;
    private RelayHarness h;

    @AfterEach
    void stop() {
        if (h != null) {
            h.close();
        }
    }

    /** A 1 MiB relay; each server may reserve half of it, each transfer a quarter. */
    private RelayHarness start() throws Exception {
        h = new RelayHarness(new StoreConfig(store, QUOTA, QUOTA, Duration.ofMinutes(10), QUOTA / 2, QUOTA / 4,
                StoreConfig.DEFAULT_MAX_RETAIN),
                ConnectionHandlers.NONE, RelayConnectionConfig.DEFAULT.withRequestTimeout(Duration.ofSeconds(5)),
                RelayHarness.POLICY, false);
        return h;
    }

    private static CompletableFuture<Void> put(RelayConnection server, RelayHarness.Opened t, long seq, int size) {
        return server.putBlock(t.id(), seq, Unpooled.wrappedBuffer(new byte[size]));
    }

    private static RelayErrorCode refusal(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
        return ((RelayRefusedException) e.getCause()).code();
    }

    @Test
    void aTransferCannotPushMoreThanTheSpaceItDeclared() throws Exception {
        start();
        try (RelayConnection server = h.server(); RelayConnection client = h.client()) {
            RelayHarness.Opened t = h.open(server, 3000);
            put(server, t, 0, 1000).get(5, TimeUnit.SECONDS);
            put(server, t, 1, 1000).get(5, TimeUnit.SECONDS);
            assertEquals(RelayErrorCode.SPACE_EXCEEDED, refusal(put(server, t, 2, 1001)));
            put(server, t, 2, 1000).get(5, TimeUnit.SECONDS);
            assertEquals(RelayErrorCode.SPACE_EXCEEDED, refusal(put(server, t, 3, 1)));
            // Confirmed blocks do not give the transfer room to push more than it declared.
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            assertEquals(3L, client.confirm(t.id(), RelayHarness.seqs(0, 3)).get(5, TimeUnit.SECONDS));
            assertEquals(RelayErrorCode.SPACE_EXCEEDED, refusal(put(server, t, 3, 1)));
            assertEquals(0, h.relay.store().used());
            // Another transfer of the same server is served.
            RelayHarness.Opened other = h.open(server, 5000);
            put(server, other, 0, 5000).get(5, TimeUnit.SECONDS);
            client.authorize(other.token()).get(5, TimeUnit.SECONDS);
            ByteBuf got = client.getBlock(other.id(), 0).get(5, TimeUnit.SECONDS);
            assertArrayEquals(new byte[5000], ByteBufUtil.getBytes(got));
            got.release();
        }
    }

    @Test
    void statusSaysWhatTheRelayReservedOfWhatWasDeclared() throws Exception {
        start();
        try (RelayConnection server = h.server()) {
            RelayHarness.Opened big = h.open(server, QUOTA); // more than --transfer-space
            assertEquals(QUOTA / 4, server.status(big.id()).get(5, TimeUnit.SECONDS).reserved());
            RelayHarness.Opened small = h.open(server, 1000);
            assertEquals(1000, server.status(small.id()).get(5, TimeUnit.SECONDS).reserved());
        }
    }

    @Test
    void aServerCannotReserveMoreThanItsShareWhileAnotherServersTransferStillFits() throws Exception {
        start();
        try (RelayConnection first = h.server();
             RelayConnection second = h.connect(Optional.of(RelayHarness.SECOND_SERVER),
                     RelayConnectionConfig.DEFAULT.withRequestTimeout(Duration.ofSeconds(5)))) {
            RelayHarness.Opened a = h.open(first, QUOTA / 4);
            RelayHarness.Opened b = h.open(first, QUOTA / 4);
            ExecutionException e = assertThrows(ExecutionException.class, () -> h.open(first, 1));
            RelayRefusedException refused = (RelayRefusedException) e.getCause();
            assertEquals(RelayErrorCode.NO_SPACE, refused.code());
            assertTrue(refused.text().contains("this server's share (--server-quota): 0 bytes free of 512 KiB"),
                    refused.text());
            // The first server fills both its transfers; the second server's transfer still fits.
            for (RelayHarness.Opened t : List.of(a, b)) {
                put(first, t, 0, QUOTA / 4).get(5, TimeUnit.SECONDS);
            }
            RelayHarness.Opened c = h.open(second, QUOTA / 4);
            put(second, c, 0, QUOTA / 4).get(5, TimeUnit.SECONDS);
            assertEquals(3 * (QUOTA / 4), h.relay.store().used());
            // Once the first server ends a transfer, its share has room again.
            first.abortTransfer(a.id()).get(5, TimeUnit.SECONDS);
            h.open(first, QUOTA / 4);
        }
    }

    @Test
    void aTransferThatDeclaredMoreThanTheRelayReservesStreamsThroughItsReservation() throws Exception {
        start();
        int block = QUOTA / 16;
        try (RelayConnection server = h.server(); RelayConnection client = h.client()) {
            RelayHarness.Opened big = h.open(server, 100L * QUOTA);
            client.authorize(big.token()).get(5, TimeUnit.SECONDS);
            List<CompletableFuture<Void>> puts = new ArrayList<>();
            for (long seq = 0; seq < 8; seq++) {
                puts.add(put(server, big, seq, block));
            }
            for (int i = 0; i < 4; i++) {
                puts.get(i).get(5, TimeUnit.SECONDS); // a quarter of the quota: the transfer's reservation
            }
            h.awaitTakenIn(puts.get(4));
            assertFalse(puts.get(4).isDone(), "the fifth block waits for the client to confirm");
            assertEquals(1, h.relay.store().waiting());
            assertEquals(QUOTA / 4, h.relay.store().used());
            // Meanwhile a second transfer is served at once (on a connection of its own: the first one reads
            // nothing more while its put waits).
            try (RelayConnection another = h.server()) {
                RelayHarness.Opened small = h.open(another, block);
                put(another, small, 0, block).get(5, TimeUnit.SECONDS);
            }
            assertEquals(4L, client.confirm(big.id(), RelayHarness.seqs(0, 4)).get(5, TimeUnit.SECONDS));
            for (CompletableFuture<Void> p : puts) {
                p.get(5, TimeUnit.SECONDS);
            }
        }
    }
}

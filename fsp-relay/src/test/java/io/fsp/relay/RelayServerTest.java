package io.fsp.relay;

import static io.fsp.relay.RelayHarness.block;
import static io.fsp.relay.RelayHarness.seqs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.relaylink.BlockNotFoundException;
import io.fsp.relaylink.RelayClosedException;
import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayConnectionConfig;
import io.fsp.relaylink.RelayRefusedException;
import io.fsp.relaylink.TokenRefusedException;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.fsp.relaylink.wire.RelayMessage;
import io.fsp.relaylink.wire.RelayRole;
import io.fsp.tls.Certificates;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TokenKey;
import io.fsp.token.TokenScope;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A real relay over real TLS on loopback, driven through the library servers and clients use. */
@Timeout(60)
class RelayServerTest {
    @TempDir
    Path store;
    private RelayHarness h;

    @AfterEach
    void stop() {
        if (h != null) {
            h.close();
        }
    }

    private RelayHarness start(long quota, long memory) throws Exception {
        h = new RelayHarness(store, quota, memory);
        return h;
    }

    private static <T> Throwable failure(CompletableFuture<T> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        return e.getCause();
    }

    private static byte[] take(CompletableFuture<ByteBuf> f) throws Exception {
        ByteBuf b = f.get(10, TimeUnit.SECONDS);
        try {
            return ByteBufUtil.getBytes(b);
        } finally {
            b.release();
        }
    }

    @Test
    void trustedServerPushesAndClientWithTokenPullsByteIdenticalBlocks() throws Exception {
        start(64L << 20, 64L << 20);
        try (RelayConnection server = h.server(); RelayConnection client = h.client()) {
            assertEquals(RelayRole.SERVER, server.role());
            assertEquals(RelayRole.CLIENT, client.role());
            assertEquals(RelayHarness.RELAY.fingerprint(), server.relayFingerprint());
            RelayHarness.Opened t = h.open(server);
            Map<Long, byte[]> sent = new HashMap<>();
            List<CompletableFuture<Void>> puts = new ArrayList<>();
            for (long seq = 0; seq < 40; seq++) {
                byte[] b = block(1 + (int) (seq * 7919 % 300_000), seq);
                sent.put(seq, b);
                puts.add(server.putBlock(t.id(), seq, Unpooled.wrappedBuffer(b)));
            }
            CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            List<CompletableFuture<ByteBuf>> gets = new ArrayList<>();
            for (long seq = 39; seq >= 0; seq--) { // any order, pipelined
                gets.add(client.getBlock(t.id(), seq));
            }
            for (int i = 0; i < gets.size(); i++) {
                assertArrayEquals(sent.get(39L - i), take(gets.get(i)), "block " + (39 - i));
            }
            RelayMessage.Status status = client.status(t.id()).get(5, TimeUnit.SECONDS);
            assertEquals(40, status.blocks());
            assertEquals(sent.values().stream().mapToLong(b -> b.length).sum(), status.bytes());
        }
    }

    @Test
    void severalClientsFetchWhileTheServerPushesAndAllGetTheSameBytes() throws Exception {
        start(8L << 20, 2L << 20); // part in memory, part spilled
        int blocks = 60;
        try (RelayConnection server = h.server()) {
            RelayHarness.Opened t = h.open(server);
            List<RelayConnection> clients = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                clients.add(h.client());
                clients.get(i).authorize(t.token()).get(5, TimeUnit.SECONDS);
            }
            List<CompletableFuture<Void>> fetched = new ArrayList<>();
            List<CompletableFuture<Void>> puts = new ArrayList<>();
            for (long seq = 0; seq < blocks; seq++) {
                long s = seq;
                CompletableFuture<Void> put = server.putBlock(t.id(), seq,
                        Unpooled.wrappedBuffer(block(50_000 + (int) seq, seq)));
                puts.add(put);
                for (RelayConnection c : clients) {
                    fetched.add(put.thenCompose(x -> c.getBlock(t.id(), s)).thenAccept(b -> {
                        try {
                            assertArrayEquals(block(50_000 + (int) s, s), ByteBufUtil.getBytes(b), "block " + s);
                        } finally {
                            b.release();
                        }
                    }));
                }
            }
            CompletableFuture.allOf(fetched.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            assertEquals(blocks, h.relay.store().status(t.id()).orElseThrow().blocks());
            assertTrue(h.relay.store().memoryUsed() <= 2L << 20);
            clients.forEach(RelayConnection::close);
        }
    }

    @Test
    void serverWithAnUntrustedCertificateIsRefused() throws Exception {
        start(1 << 20, 1 << 20);
        CompletableFuture<RelayConnection> f = CompletableFuture.supplyAsync(() -> {
            try {
                return h.connect(Optional.of(Certificates.selfSigned("stranger")), RelayConnectionConfig.DEFAULT);
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
        Throwable e = failure(f);
        while (e.getCause() != null && !(e instanceof RelayClosedException)) {
            e = e.getCause();
        }
        assertInstanceOf(RelayClosedException.class, e);
        // The relay keeps serving the trusted server.
        try (RelayConnection server = h.server()) {
            assertEquals(RelayRole.SERVER, server.role());
        }
    }

    @Test
    void clientWithoutCertificateCanNeitherOpenNorPut() throws Exception {
        start(1 << 20, 1 << 20);
        try (RelayConnection server = h.server(); RelayConnection client = h.client()) {
            RelayHarness.Opened t = h.open(server);
            Throwable open = failure(client.openTransfer(TransferId.random(), TokenKey.random(),
                    Instant.now().plusSeconds(60), Long.MAX_VALUE));
            assertEquals(RelayErrorCode.NOT_A_TRUSTED_SERVER, ((RelayRefusedException) open).code());
            Throwable put = failure(client.putBlock(t.id(), 0, Unpooled.wrappedBuffer(new byte[10])));
            assertEquals(RelayErrorCode.NOT_A_TRUSTED_SERVER, ((RelayRefusedException) put).code());
            // A large block from a peer without a trusted certificate is not even buffered.
            Throwable big = failure(client.putBlock(t.id(), 1, Unpooled.wrappedBuffer(new byte[1 << 20])));
            assertInstanceOf(RelayClosedException.class, big); // ERROR BAD_FRAME, or a reset if that was lost
            assertEquals(0, h.relay.store().used());
            assertEquals(0, h.relay.store().used());
        }
    }

    @Test
    void clientPinningAnotherRelayIsRefusedAtTheHandshake() throws Exception {
        start(1 << 20, 1 << 20);
        Throwable e = failure(RelayConnection.connect(h.relay.address(),
                io.fsp.tls.SslContexts.client(PinnedTrustManager.of(java.util.Set.of(RelayHarness.SERVER.fingerprint())),
                        Optional.empty()), h.group, RelayConnectionConfig.DEFAULT));
        assertInstanceOf(RelayClosedException.class, e);
        assertTrue(e.getMessage().contains("not trusted"), e.getMessage());
    }

    @Test
    void forgedExpiredForeignAndUnknownTokensAreRefused() throws Exception {
        start(1 << 20, 1 << 20);
        try (RelayConnection server = h.server(); RelayConnection client = h.client()) {
            RelayHarness.Opened a = h.open(server);
            RelayHarness.Opened b = h.open(server);
            server.putBlock(b.id(), 0, Unpooled.wrappedBuffer(new byte[] {1, 2, 3})).get(5, TimeUnit.SECONDS);
            Instant later = h.clock.instant().plusSeconds(600);

            CapabilityToken forged = CapabilityToken.issue(TokenKey.random(), a.id(), later, TokenScope.ALL);
            assertEquals(RelayErrorCode.TOKEN_FORGED, refusedToken(client.authorize(forged)));
            CapabilityToken claimsB = CapabilityToken.issue(a.key(), b.id(), later, TokenScope.ALL);
            assertEquals(RelayErrorCode.TOKEN_FORGED, refusedToken(client.authorize(claimsB)));
            CapabilityToken expired = CapabilityToken.issue(a.key(), a.id(), h.clock.instant().minusSeconds(1),
                    TokenScope.ALL);
            assertEquals(RelayErrorCode.TOKEN_EXPIRED, refusedToken(client.authorize(expired)));
            CapabilityToken unknown = CapabilityToken.issue(a.key(), TransferId.random(), later, TokenScope.ALL);
            assertEquals(RelayErrorCode.UNKNOWN_TRANSFER,
                    ((RelayRefusedException) failure(client.authorize(unknown))).code());

            // A valid token for A opens nothing of B.
            client.authorize(a.token()).get(5, TimeUnit.SECONDS);
            assertEquals(RelayErrorCode.TOKEN_FOREIGN, refusedToken(client.getBlock(b.id(), 0)));
            assertEquals(RelayErrorCode.TOKEN_FOREIGN, refusedToken(client.confirm(b.id(), List.of(0L))));
            assertEquals(RelayErrorCode.TOKEN_FOREIGN, refusedToken(client.status(b.id())));
            assertEquals(1, h.relay.store().status(b.id()).orElseThrow().blocks());
        }
    }

    @Test
    void tokenThatExpiresWhileConnectedStopsWorking() throws Exception {
        start(1 << 20, 1 << 20);
        try (RelayConnection server = h.server(); RelayConnection client = h.client()) {
            TransferId id = TransferId.random();
            TokenKey key = TokenKey.random();
            server.openTransfer(id, key, h.clock.instant().plus(Duration.ofHours(2)), Long.MAX_VALUE).get(5, TimeUnit.SECONDS);
            server.putBlock(id, 0, Unpooled.wrappedBuffer(new byte[] {9})).get(5, TimeUnit.SECONDS);
            client.authorize(CapabilityToken.issue(key, id, h.clock.instant().plusSeconds(60), TokenScope.ALL))
                    .get(5, TimeUnit.SECONDS);
            assertArrayEquals(new byte[] {9}, take(client.getBlock(id, 0)));
            h.clock.advance(Duration.ofSeconds(61));
            assertEquals(RelayErrorCode.TOKEN_EXPIRED, refusedToken(client.getBlock(id, 0)));
        }
    }

    @Test
    void tokenScopeLimitsBlocksAndOperations() throws Exception {
        start(1 << 20, 1 << 20);
        try (RelayConnection server = h.server(); RelayConnection client = h.client()) {
            RelayHarness.Opened t = h.open(server);
            for (long seq = 0; seq < 6; seq++) {
                server.putBlock(t.id(), seq, Unpooled.wrappedBuffer(new byte[] {(byte) seq})).get(5, TimeUnit.SECONDS);
            }
            client.authorize(CapabilityToken.issue(t.key(), t.id(), h.clock.instant().plusSeconds(60),
                    new TokenScope(true, false, 0, 4))).get(5, TimeUnit.SECONDS);
            assertArrayEquals(new byte[] {4}, take(client.getBlock(t.id(), 4)));
            assertEquals(RelayErrorCode.TOKEN_FOREIGN, refusedToken(client.getBlock(t.id(), 5)));
            assertEquals(RelayErrorCode.TOKEN_FOREIGN, refusedToken(client.confirm(t.id(), List.of(1L))));
        }
    }

    @Test
    void confirmFreesBlocksAndTheirSpace() throws Exception {
        start(1 << 20, 1 << 20);
        try (RelayConnection server = h.server(); RelayConnection client = h.client()) {
            RelayHarness.Opened t = h.open(server);
            for (long seq = 0; seq < 4; seq++) {
                server.putBlock(t.id(), seq, Unpooled.wrappedBuffer(block(1000, seq))).get(5, TimeUnit.SECONDS);
            }
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            assertEquals(3L, client.confirm(t.id(), List.of(0L, 1L, 2L, 77L)).get(5, TimeUnit.SECONDS));
            BlockNotFoundException gone = (BlockNotFoundException) failure(client.getBlock(t.id(), 1));
            assertEquals(1, gone.seq());
            assertArrayEquals(block(1000, 3), take(client.getBlock(t.id(), 3)));
            assertEquals(1, client.status(t.id()).get(5, TimeUnit.SECONDS).blocks());
            assertEquals(1000, h.relay.store().used());
        }
    }

    @Test
    void fullRelayMakesThePusherWaitAndResumeAsTheClientConfirms() throws Exception {
        int blockSize = 64 * 1024;
        int blocks = 48; // 3 MiB through a 1 MiB relay, all of which one transfer may take
        h = new RelayHarness(new io.fsp.relay.store.StoreConfig(store, 1 << 20, 256 * 1024, Duration.ofMinutes(10)),
                ConnectionHandlers.NONE, RelayConnectionConfig.DEFAULT.withRequestTimeout(Duration.ofSeconds(5)),
                RelayHarness.POLICY, false);
        try (RelayConnection server = h.server(); RelayConnection client = h.client()) {
            RelayHarness.Opened t = h.open(server);
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            List<CompletableFuture<Void>> puts = new ArrayList<>();
            for (long seq = 0; seq < blocks; seq++) {
                puts.add(server.putBlock(t.id(), seq, Unpooled.wrappedBuffer(block(blockSize, seq))));
            }
            awaitStored(puts, 16);
            h.awaitTakenIn(puts.get(16));
            assertEquals(16, puts.stream().filter(CompletableFuture::isDone).count(),
                    "the relay holds a quota's worth and makes the rest wait");
            assertEquals(1 << 20, h.relay.store().used(), "a quota's worth taken in, no more");
            assertEquals(1, h.relay.store().waiting());
            int next = 0;
            while (next < blocks) {
                if (!puts.get(next).isDone()) {
                    Thread.sleep(5);
                    continue;
                }
                assertArrayEquals(block(blockSize, next), take(client.getBlock(t.id(), next)));
                client.confirm(t.id(), List.of((long) next)).get(5, TimeUnit.SECONDS);
                assertTrue(h.relay.store().used() <= 1 << 20);
                next++;
            }
            CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void blocksSpillToDiskAsTheirExactBytesAndComeBack() throws Exception {
        start(8 << 20, 0); // nothing in memory: every block goes to disk
        try (RelayConnection server = h.server(); RelayConnection client = h.client()) {
            RelayHarness.Opened t = h.open(server);
            for (long seq = 0; seq < 10; seq++) {
                server.putBlock(t.id(), seq, Unpooled.wrappedBuffer(block(100_000 + (int) seq, seq)))
                        .get(5, TimeUnit.SECONDS);
            }
            assertEquals(0, h.relay.store().memoryUsed());
            List<Path> files;
            try (Stream<Path> s = Files.walk(store)) {
                files = s.filter(Files::isRegularFile).filter(p -> p.toString().endsWith(".blk")).toList();
            }
            assertEquals(10, files.size());
            for (Path f : files) {
                long seq = Long.parseLong(f.getFileName().toString().replace(".blk", ""));
                assertArrayEquals(block(100_000 + (int) seq, seq), Files.readAllBytes(f),
                        "the store holds exactly the bytes received");
            }
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);
            for (long seq = 0; seq < 10; seq++) {
                assertArrayEquals(block(100_000 + (int) seq, seq), take(client.getBlock(t.id(), seq)));
            }
            client.confirm(t.id(), seqs(0, 10)).get(5, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (h.relay.store().used() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            try (Stream<Path> s = Files.walk(store)) {
                assertEquals(List.of(store.resolve(".lock")), s.filter(Files::isRegularFile).toList(), "only the store's lock");
            }
        }
    }

    @Test
    void pushWindowBoundsUnacknowledgedBytes() throws Exception {
        start(64L << 20, 64L << 20);
        RelayConnectionConfig small = RelayConnectionConfig.DEFAULT.withPushWindowBytes(100_000);
        try (RelayConnection server = h.connect(Optional.of(RelayHarness.SERVER), small)) {
            RelayHarness.Opened t = h.open(server);
            long maxSeen = 0;
            List<CompletableFuture<Void>> puts = new ArrayList<>();
            for (long seq = 0; seq < 50; seq++) {
                server.whenWritable().get(5, TimeUnit.SECONDS);
                puts.add(server.putBlock(t.id(), seq, Unpooled.wrappedBuffer(block(30_000, seq))));
                maxSeen = Math.max(maxSeen, server.unacknowledgedBytes());
            }
            CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            assertTrue(maxSeen <= 130_000, "unacknowledged: " + maxSeen);
            assertEquals(50, h.relay.store().status(t.id()).orElseThrow().blocks());
        }
    }

    @Test
    void aServerConnectionKnowsItsRoundTripFromItsSmallRequests() throws Exception {
        start(64L << 20, 64L << 20);
        long before = System.nanoTime();
        try (RelayConnection c = h.connect(Optional.of(RelayHarness.SERVER), RelayConnectionConfig.DEFAULT)) {
            long afterHello = c.minRoundTripNanos();
            assertTrue(afterHello > 0 && afterHello <= System.nanoTime() - before, "round trip of HELLO: " + afterHello);
            h.open(c);
            assertTrue(c.minRoundTripNanos() > 0 && c.minRoundTripNanos() <= afterHello, "the shortest one is kept");
        }
    }

    @Test
    void firstWritableStripesAroundAFullRelay() throws Exception {
        start(64L << 20, 64L << 20);
        try (RelayHarness other = new RelayHarness(new io.fsp.relay.store.StoreConfig(store.resolve("small"), 100_000,
                100_000, Duration.ofMinutes(10)), ConnectionHandlers.NONE, RelayConnectionConfig.DEFAULT, RelayHarness.POLICY, false)) {
            RelayConnectionConfig window = RelayConnectionConfig.DEFAULT.withPushWindowBytes(50_000);
            try (RelayConnection big = h.connect(Optional.of(RelayHarness.SERVER), window);
                 RelayConnection small = other.connect(Optional.of(RelayHarness.SERVER), window)) {
                RelayHarness.Opened onBig = h.open(big);
                RelayHarness.Opened onSmall = other.open(small);
                Map<RelayConnection, TransferId> ids = Map.of(big, onBig.id(), small, onSmall.id());
                List<CompletableFuture<Void>> toBig = new ArrayList<>();
                List<CompletableFuture<Void>> toSmall = new ArrayList<>();
                // Which relay frees its window first is a race, so stripe until the small relay has been offered
                // more than it can hold, then 32 blocks more.
                long seq = 0;
                for (long until = Long.MAX_VALUE; seq < until && seq < 2_000; seq++) {
                    RelayConnection r = RelayConnection.firstWritable(List.of(small, big)).get(10, TimeUnit.SECONDS);
                    (r == big ? toBig : toSmall).add(r.putBlock(ids.get(r), seq, Unpooled.wrappedBuffer(block(20_000, seq))));
                    if (until == Long.MAX_VALUE && toSmall.size() > 5) {
                        until = seq + 33;
                    }
                }
                // The small relay holds 5 blocks and stops acknowledging; at most a window's worth more waits
                // for it (2 at the relay, 1 here), and everything else goes to the big one, which stores it all.
                CompletableFuture.allOf(toBig.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
                assertTrue(toSmall.size() <= 8, "blocks for the small relay: " + toSmall.size());
                assertEquals(seq, toBig.size() + toSmall.size());
                assertEquals(toBig.size(), h.relay.store().status(onBig.id()).orElseThrow().blocks());
                assertTrue(toSmall.size() > 5, "blocks for the small relay: " + toSmall.size());
                CompletableFuture.allOf(toSmall.subList(0, 5).toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
                other.awaitTakenIn(toSmall.get(5));
                assertEquals(5, other.relay.store().status(onSmall.id()).orElseThrow().blocks());
                assertEquals(toSmall.size() - 5, toSmall.stream().filter(f -> !f.isDone()).count(),
                        "every block past the small relay's quota waits for it");
            }
        }
    }

    @Test
    void closingTwiceIsHarmless() throws Exception {
        FspRelay relay = FspRelay.start(new RelayConfig(new java.net.InetSocketAddress("127.0.0.1", 0),
                new io.fsp.relay.store.StoreConfig(store, 1 << 20, 1 << 20, Duration.ofMinutes(1)), RelayHarness.RELAY,
                java.util.Set.of(RelayHarness.SERVER.fingerprint()), io.fsp.relaylink.wire.RelayLimits.DEFAULT,
                RelayHarness.POLICY, false, false, ConnectionHandlers.NONE, java.time.Clock.systemUTC()));
        java.net.InetSocketAddress address = relay.address();
        relay.close();
        relay.close();
        assertThrows(java.io.IOException.class, () -> new java.net.Socket(address.getAddress(), address.getPort()).close());
    }

    @Test
    void abandonedTransferIsDroppedAfterTheTtlByTheRunningRelay() throws Exception {
        try (FspRelay relay = FspRelay.start(new RelayConfig(new java.net.InetSocketAddress("127.0.0.1", 0),
                new io.fsp.relay.store.StoreConfig(store, 1 << 20, 0, Duration.ofMillis(300)), RelayHarness.RELAY,
                java.util.Set.of(RelayHarness.SERVER.fingerprint()), io.fsp.relaylink.wire.RelayLimits.DEFAULT,
                RelayHarness.POLICY, false, false, ConnectionHandlers.NONE, java.time.Clock.systemUTC()))) {
            h = new RelayHarness(store.resolve("unused"), 1 << 20, 1 << 20); // for its event loop
            TransferId id = TransferId.random();
            try (RelayConnection server = RelayConnection.connect(relay.address(), io.fsp.tls.SslContexts.client(
                    PinnedTrustManager.of(java.util.Set.of(RelayHarness.RELAY.fingerprint())),
                    Optional.of(RelayHarness.SERVER)), h.group, RelayConnectionConfig.DEFAULT).get(10, TimeUnit.SECONDS)) {
                server.openTransfer(id, TokenKey.random(), Instant.now().plusSeconds(3600), Long.MAX_VALUE).get(5, TimeUnit.SECONDS);
                server.putBlock(id, 0, Unpooled.wrappedBuffer(new byte[1000])).get(5, TimeUnit.SECONDS);
                assertEquals(1000, relay.store().used());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (relay.store().status(id).isPresent() && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertTrue(relay.store().status(id).isEmpty(), "transfer expired");
                assertEquals(RelayErrorCode.UNKNOWN_TRANSFER,
                        ((RelayRefusedException) failure(server.status(id))).code());
                while (relay.store().used() > 0 && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertEquals(0, relay.store().used());
                try (Stream<Path> s = Files.walk(store)) {
                    assertEquals(0, s.filter(p -> Files.isRegularFile(p) && p.toString().endsWith(".blk")).count());
                }
            }
        }
    }

    @Test
    void aTrustedServerCannotTouchAnotherServersTransfer() throws Exception {
        io.fsp.tls.KeyMaterial second = Certificates.selfSigned("second server");
        try (FspRelay relay = FspRelay.start(new RelayConfig(new java.net.InetSocketAddress("127.0.0.1", 0),
                new io.fsp.relay.store.StoreConfig(store, 1 << 20, 1 << 20, Duration.ofMinutes(1)), RelayHarness.RELAY,
                java.util.Set.of(RelayHarness.SERVER.fingerprint(), second.fingerprint()),
                io.fsp.relaylink.wire.RelayLimits.DEFAULT, RelayHarness.POLICY, false, false, ConnectionHandlers.NONE,
                java.time.Clock.systemUTC()))) {
            h = new RelayHarness(store.resolve("unused"), 1 << 20, 1 << 20); // for its event loop
            io.netty.handler.ssl.SslContext asFirst = io.fsp.tls.SslContexts.client(
                    PinnedTrustManager.of(java.util.Set.of(RelayHarness.RELAY.fingerprint())), Optional.of(RelayHarness.SERVER));
            io.netty.handler.ssl.SslContext asSecond = io.fsp.tls.SslContexts.client(
                    PinnedTrustManager.of(java.util.Set.of(RelayHarness.RELAY.fingerprint())), Optional.of(second));
            try (RelayConnection first = RelayConnection.connect(relay.address(), asFirst, h.group,
                    RelayConnectionConfig.DEFAULT).get(10, TimeUnit.SECONDS);
                 RelayConnection other = RelayConnection.connect(relay.address(), asSecond, h.group,
                    RelayConnectionConfig.DEFAULT).get(10, TimeUnit.SECONDS)) {
                TransferId id = TransferId.random();
                TokenKey key = TokenKey.random();
                first.openTransfer(id, key, Instant.now().plusSeconds(60), Long.MAX_VALUE).get(5, TimeUnit.SECONDS);
                first.putBlock(id, 0, Unpooled.wrappedBuffer(new byte[] {1})).get(5, TimeUnit.SECONDS);
                // The other server learns nothing of it: every request is answered as for a transfer not open here.
                TransferId unknown = TransferId.random();
                String notOpen = "relay 127.0.0.1:" + relay.address().getPort() + ": UNKNOWN_TRANSFER: transfer " + id
                        + " is not open here";
                assertEquals(notOpen, failure(other.putBlock(id, 1, Unpooled.wrappedBuffer(new byte[] {2}))).getMessage());
                assertEquals(notOpen, failure(other.status(id)).getMessage());
                assertEquals(notOpen, failure(other.finishTransfer(id)).getMessage());
                assertEquals(notOpen, failure(other.abortTransfer(id)).getMessage());
                assertEquals(notOpen.replace(id.toString(), unknown.toString()),
                        failure(other.status(unknown)).getMessage(), "the same as for a transfer nobody opened");
                assertEquals(notOpen.replace(id.toString(), unknown.toString()),
                        failure(other.abortTransfer(unknown)).getMessage());
                assertEquals(RelayErrorCode.TOKEN_FOREIGN, ((RelayRefusedException) failure(other.getBlock(id, 0))).code());
                assertEquals(RelayErrorCode.TRANSFER_EXISTS, ((RelayRefusedException) failure(
                        other.openTransfer(id, key, Instant.now().plusSeconds(60), Long.MAX_VALUE))).code());
                assertEquals(1, relay.store().status(id).orElseThrow().blocks());
                assertEquals(1, first.status(id).get(5, TimeUnit.SECONDS).blocks(), "its owner is answered");
                // A server given a token for it (a collecting site) is answered as a client with that token is.
                other.authorize(CapabilityToken.issue(key, id, Instant.now().plusSeconds(60), TokenScope.ALL))
                        .get(5, TimeUnit.SECONDS);
                assertEquals(1, other.status(id).get(5, TimeUnit.SECONDS).blocks());
                first.abortTransfer(id).get(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void abortDropsTheTransfer() throws Exception {
        start(1 << 20, 1 << 20);
        try (RelayConnection server = h.server(); RelayConnection client = h.client()) {
            RelayHarness.Opened t = h.open(server);
            server.putBlock(t.id(), 0, Unpooled.wrappedBuffer(new byte[100])).get(5, TimeUnit.SECONDS);
            server.abortTransfer(t.id()).get(5, TimeUnit.SECONDS);
            assertEquals(RelayErrorCode.UNKNOWN_TRANSFER,
                    ((RelayRefusedException) failure(client.authorize(t.token()))).code());
            assertEquals(0, h.relay.store().used());
        }
    }

    @Test
    void relayKeepsServingOthersAfterBadInput() throws Exception {
        start(1 << 20, 1 << 20);
        try (RelayConnection server = h.server(); RelayConnection client = h.client()) {
            RelayHarness.Opened t = h.open(server);
            server.putBlock(t.id(), 0, Unpooled.wrappedBuffer(new byte[] {42})).get(5, TimeUnit.SECONDS);
            client.authorize(t.token()).get(5, TimeUnit.SECONDS);

            // Garbage frame type after a good HELLO.
            try (SSLSocket raw = h.rawTls()) {
                OutputStream out = raw.getOutputStream();
                out.write(new byte[] {0x01, 0, 0, 0, 6, 0, 0, 0, 1, 0, RelayMessage.VERSION}); // HELLO
                out.write(new byte[] {0x66, 0, 0, 0, 0});
                out.flush();
                DataInputStream in = new DataInputStream(raw.getInputStream());
                assertEquals(0x02, in.readUnsignedByte()); // WELCOME
                in.skipNBytes(in.readInt());
                assertEquals(RelayErrorCode.BAD_FRAME, RelayHarness.readError(in));
                RelayHarness.assertClosed(in);
            }
            // A frame that claims to be enormous.
            try (SSLSocket raw = h.rawTls()) {
                raw.getOutputStream().write(new byte[] {0x11, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff});
                DataInputStream in = new DataInputStream(raw.getInputStream());
                assertEquals(RelayErrorCode.BAD_FRAME, RelayHarness.readError(in));
                RelayHarness.assertClosed(in);
            }
            // Anything before HELLO.
            try (SSLSocket raw = h.rawTls()) {
                raw.getOutputStream().write(new byte[] {(byte) 0x80, 0, 0, 0, 4, 0, 0, 0, 1});
                DataInputStream in = new DataInputStream(raw.getInputStream());
                assertEquals(RelayErrorCode.BAD_HANDSHAKE, RelayHarness.readError(in));
                RelayHarness.assertClosed(in);
            }
            // Not TLS at all.
            try (Socket plain = new Socket("127.0.0.1", h.relay.address().getPort())) {
                plain.getOutputStream().write("GET / HTTP/1.1\r\n\r\n".getBytes());
                plain.setSoTimeout(5000);
                InputStream in = plain.getInputStream();
                while (in.read() >= 0) {
                    // drain whatever TLS alert comes back until the relay closes
                }
            }
            // The honest peers are still served.
            assertArrayEquals(new byte[] {42}, take(client.getBlock(t.id(), 0)));
            server.putBlock(t.id(), 1, Unpooled.wrappedBuffer(new byte[] {43})).get(5, TimeUnit.SECONDS);
            assertArrayEquals(new byte[] {43}, take(client.getBlock(t.id(), 1)));
        }
    }

    @Test
    void deadRelayFailsPendingAndNewRequestsWithRelayClosed() throws Exception {
        start(1 << 20, 1 << 20);
        RelayConnection client = h.client();
        InetSocketAddress address = h.relay.address();
        h.relay.close();
        client.closeFuture().get(10, TimeUnit.SECONDS);
        assertFalse(client.isOpen());
        assertInstanceOf(RelayClosedException.class, failure(client.getBlock(TransferId.random(), 0)));
        Throwable connect = failure(RelayConnection.connect(address,
                io.fsp.tls.SslContexts.client(PinnedTrustManager.any(), Optional.empty()), h.group,
                RelayConnectionConfig.DEFAULT));
        assertInstanceOf(RelayClosedException.class, connect);
        h.group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        h = null;
    }

    @Test
    void silentConnectionIsClosedAfterTheIdleTimeout() throws Exception {
        h = new RelayHarness(store, 1 << 20, 1 << 20, ConnectionHandlers.NONE, RelayConnectionConfig.DEFAULT,
                RelayHarness.POLICY.withIdleTimeout(Duration.ofMillis(300)), false);
        RelayConnection client = h.client();
        client.closeFuture().get(10, TimeUnit.SECONDS);
        assertFalse(client.isOpen());
        assertInstanceOf(RelayClosedException.class, failure(client.status(TransferId.random())));
    }

    // ---------------------------------------------------------------- helpers

    private static RelayErrorCode refusedToken(CompletableFuture<?> f) {
        Throwable e = failure(f);
        assertInstanceOf(TokenRefusedException.class, e, String.valueOf(e));
        return ((TokenRefusedException) e).code();
    }

    private static void awaitStored(List<CompletableFuture<Void>> puts, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            puts.get(i).get(10, TimeUnit.SECONDS);
        }
    }
}

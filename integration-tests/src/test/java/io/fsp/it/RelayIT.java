package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.block.Block;
import io.fsp.block.BlockChecksumException;
import io.fsp.block.BlockLimits;
import io.fsp.block.Blocks;
import io.fsp.block.stage.BlockPipeline;
import io.fsp.block.stage.OpenedBlock;
import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.crypto.TransferKey;
import io.fsp.it.harness.RelayProcess;
import io.fsp.relaylink.RelayClosedException;
import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayConnectionConfig;
import io.fsp.tls.Certificates;
import io.fsp.tls.KeyMaterial;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.tls.SslContexts;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TokenKey;
import io.fsp.token.TokenScope;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code fsp-relay} as a separate process, fed real sealed blocks through the relay library. */
@Timeout(120)
class RelayIT {
    private static final KeyMaterial SERVER = Certificates.selfSigned("fsp-server");
    private static final String KNOWN = "Known plaintext that must never reach a relay's disk. ";
    private static EventLoopGroup group;
    @TempDir
    Path dir;

    @BeforeAll
    static void startGroup() {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stopGroup() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static RelayConnection connect(RelayProcess relay, Optional<KeyMaterial> identity) throws Exception {
        return RelayConnection.connect(relay.address(),
                SslContexts.client(PinnedTrustManager.of(Set.of(relay.fingerprint())), identity), group,
                RelayConnectionConfig.DEFAULT.withRequestTimeout(Duration.ofSeconds(10)))
                .get(30, TimeUnit.SECONDS);
    }

    /** Seals {@code count} blocks of known text for a fresh transfer and pushes them; returns their wire bytes. */
    private static List<byte[]> push(RelayConnection server, TransferId id, TokenKey tokenKey, int count)
            throws Exception {
        server.openTransfer(id, tokenKey, Instant.now().plusSeconds(600), 1L << 20).get(10, TimeUnit.SECONDS);
        return put(server, id, TransferKey.generate(id.value(), 256, new SecureRandom()), count);
    }

    /** Seals {@code count} blocks of known text with {@code key} and puts them; returns their wire bytes. */
    private static List<byte[]> put(RelayConnection server, TransferId id, TransferKey key, int count)
            throws Exception {
        List<byte[]> wire = new ArrayList<>();
        try (BlockPipeline sender = BlockPipeline.builder().transferId(id.value()).checksum(ChecksumAlgorithm.CRC32C)
                .noCompression().encryption(key).build()) {
            List<CompletableFuture<Void>> puts = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                ByteBuf data = Unpooled.copiedBuffer(KNOWN.repeat(1000), StandardCharsets.UTF_8);
                Block b = sender.seal(data, (long) i * data.readableBytes(), "known.txt", i == count - 1).block();
                data.release();
                assertEquals(i, wire.size());
                wire.add(ByteBufUtil.getBytes(b.content()));
                puts.add(server.putBlock(id, b.header().sequence(), b.content()));
            }
            CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        }
        return wire;
    }

    private static long seqOf(byte[] wire) {
        Block b = Blocks.parse(Unpooled.wrappedBuffer(wire), BlockLimits.DEFAULT);
        try {
            return b.header().sequence();
        } finally {
            b.release();
        }
    }

    @Test
    void relayProcessServesByteIdenticalBlocksAndDeletesConfirmedOnes() throws Exception {
        try (RelayProcess relay = RelayProcess.start(dir, SERVER.fingerprint(), "--memory", "0", "--quota", "64M");
             RelayConnection server = connect(relay, Optional.of(SERVER));
             RelayConnection client = connect(relay, Optional.empty())) {
            TransferId id = TransferId.random();
            TokenKey key = TokenKey.random();
            List<byte[]> wire = push(server, id, key, 8);
            // (That no plaintext reaches a relay's disk through the server's own striping: FaultyRelayIT.)
            assertEquals(8, regularFiles(relay.store()), "memory 0: every block on the relay's disk");
            client.authorize(CapabilityToken.issue(key, id, Instant.now().plusSeconds(600), TokenScope.ALL))
                    .get(10, TimeUnit.SECONDS);
            List<Long> seqs = new ArrayList<>();
            for (byte[] w : wire) {
                long seq = seqOf(w);
                seqs.add(seq);
                ByteBuf got = client.getBlock(id, seq).get(10, TimeUnit.SECONDS);
                assertArrayEquals(w, ByteBufUtil.getBytes(got));
                got.release();
            }
            assertEquals(8L, client.confirm(id, seqs).get(10, TimeUnit.SECONDS));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            long left;
            do {
                left = regularFiles(relay.store());
            } while (left > 0 && System.nanoTime() < deadline);
            assertEquals(0, left, "confirmed blocks are deleted from the relay's disk");
        }
    }

    @Test
    void oneTokenHolderCannotTakeTheRelaysConnections() throws Exception {
        // 24 connections, 8 kept for servers, 4 per transfer: the holder of one token gets 4 of its 40 tries.
        try (RelayProcess relay = RelayProcess.start(dir, SERVER.fingerprint(), "--max-connections", "24",
                "--server-connections", "8", "--max-connections-per-transfer", "4");
             RelayConnection server = connect(relay, Optional.of(SERVER))) {
            TransferId id = TransferId.random();
            TokenKey key = TokenKey.random();
            push(server, id, key, 1);
            CapabilityToken token = CapabilityToken.issue(key, id, Instant.now().plusSeconds(600), TokenScope.ALL);
            List<RelayConnection> held = new ArrayList<>();
            int refused = 0;
            try {
                for (int i = 0; i < 40; i++) {
                    RelayConnection c = connect(relay, Optional.empty());
                    try {
                        c.authorize(token).get(10, TimeUnit.SECONDS);
                        held.add(c);
                    } catch (ExecutionException e) {
                        assertEquals(io.fsp.relaylink.wire.RelayErrorCode.TOO_MANY_CONNECTIONS,
                                ((io.fsp.relaylink.RelayRefusedException) e.getCause()).code(), e.toString());
                        c.closeFuture().get(10, TimeUnit.SECONDS); // the relay closed it
                        refused++;
                    }
                }
                assertEquals(4, held.size(), "connections the token holder kept");
                assertEquals(36, refused);
                // The relay's servers still get in and push: a second transfer, its blocks, over new connections.
                for (int i = 0; i < 3; i++) {
                    try (RelayConnection another = connect(relay, Optional.of(SERVER))) {
                        push(another, TransferId.random(), TokenKey.random(), 1);
                    }
                }
            } finally {
                for (RelayConnection c : held) {
                    c.close();
                }
            }
        }
    }

    @Test
    void oneAddressHoldsItsShareOfTokenConnectionsWhateverTokensItShows() throws Exception {
        // 4 per transfer, 6 per address: a second token from the same address adds 2, not 4.
        try (RelayProcess relay = RelayProcess.start(dir, SERVER.fingerprint(), "--max-connections-per-transfer", "4",
                "--max-client-connections-per-address", "6");
             RelayConnection server = connect(relay, Optional.of(SERVER))) {
            List<RelayConnection> held = new ArrayList<>();
            try {
                CapabilityToken first = openWithToken(server);
                CapabilityToken second = openWithToken(server);
                List<String> refusals = new ArrayList<>();
                for (CapabilityToken token : List.of(first, first, first, first, first, second, second, second)) {
                    authorizeOrRefused(relay, token, refusals).ifPresent(held::add);
                }
                assertEquals(6, held.size(), "connections one address kept with two tokens: " + refusals);
                assertEquals(2, refusals.size(), refusals.toString());
                assertTrue(refusals.get(0).contains("--max-connections-per-transfer"), refusals.get(0));
                assertTrue(refusals.get(1).contains("--max-client-connections-per-address"), refusals.get(1));
            } finally {
                held.forEach(RelayConnection::close);
            }
        }
    }

    @Test
    void clientsAtTheirCapLeaveTheServersTheirConnections() throws Exception {
        // 12 connections, 4 kept for servers: token holders get 8; with those held, servers still connect and push.
        try (RelayProcess relay = RelayProcess.start(dir, SERVER.fingerprint(), "--max-connections", "12",
                "--server-connections", "4");
             RelayConnection server = connect(relay, Optional.of(SERVER))) {
            List<RelayConnection> held = new ArrayList<>();
            List<RelayConnection> servers = new ArrayList<>();
            try {
                CapabilityToken token = openWithToken(server);
                List<String> refusals = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    authorizeOrRefused(relay, token, refusals).ifPresent(held::add);
                }
                assertEquals(8, held.size(), "client connections held: " + refusals);
                assertEquals(2, refusals.size(), refusals.toString());
                assertTrue(refusals.stream().allMatch(r -> r.contains("--server-connections")), refusals.toString());
                // Two more servers at once, beside the first and the 8 clients (one place spare, for a refused
                // connection the relay may not have counted out yet): each opens a transfer and pushes into it.
                for (int i = 0; i < 2; i++) {
                    servers.add(connect(relay, Optional.of(SERVER)));
                }
                for (RelayConnection s : servers) {
                    push(s, TransferId.random(), TokenKey.random(), 1);
                }
            } finally {
                held.forEach(RelayConnection::close);
                servers.forEach(RelayConnection::close);
            }
        }
    }

    /** Opens a transfer over {@code server} with one block in it; the token a client would be given for it. */
    private static CapabilityToken openWithToken(RelayConnection server) throws Exception {
        TransferId id = TransferId.random();
        TokenKey key = TokenKey.random();
        push(server, id, key, 1);
        return CapabilityToken.issue(key, id, Instant.now().plusSeconds(600), TokenScope.ALL);
    }

    /**
     * A new client connection that shows {@code token}: kept if the relay accepts it; else the refusal (which must be
     * TOO_MANY_CONNECTIONS, the connection closed by the relay) is added to {@code refusals}.
     */
    private static Optional<RelayConnection> authorizeOrRefused(RelayProcess relay, CapabilityToken token,
                                                                List<String> refusals) throws Exception {
        RelayConnection c = connect(relay, Optional.empty());
        try {
            c.authorize(token).get(10, TimeUnit.SECONDS);
            return Optional.of(c);
        } catch (ExecutionException e) {
            assertEquals(io.fsp.relaylink.wire.RelayErrorCode.TOO_MANY_CONNECTIONS,
                    ((io.fsp.relaylink.RelayRefusedException) e.getCause()).code(), e.toString());
            c.closeFuture().get(10, TimeUnit.SECONDS); // the relay closed it
            refusals.add(e.getCause().getMessage());
            return Optional.empty();
        }
    }

    @Test
    void killedRelaySurfacesAsRelayClosedToItsPeers() throws Exception {
        RelayProcess relay = RelayProcess.start(dir, SERVER.fingerprint());
        try (RelayConnection server = connect(relay, Optional.of(SERVER))) {
            TransferId id = TransferId.random();
            push(server, id, TokenKey.random(), 2);
            relay.kill();
            server.closeFuture().get(10, TimeUnit.SECONDS);
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> server.putBlock(id, 5, Unpooled.wrappedBuffer(new byte[10])).get(10, TimeUnit.SECONDS));
            assertInstanceOf(RelayClosedException.class, e.getCause());
            ExecutionException again = assertThrows(ExecutionException.class, () -> connect(relay, Optional.empty()));
            assertInstanceOf(RelayClosedException.class, again.getCause());
        } finally {
            relay.close();
        }
    }

    @Test
    void stalledRelayProcessTimesClientsOutButStillTakesBlocks() throws Exception {
        try (RelayProcess relay = RelayProcess.withFaults(dir, SERVER.fingerprint(), "--fault", "stall");
             RelayConnection server = connect(relay, Optional.of(SERVER))) {
            push(server, TransferId.random(), TokenKey.random(), 2);
            RelayConnectionConfig impatient = RelayConnectionConfig.DEFAULT.withConnectTimeout(Duration.ofSeconds(1));
            ExecutionException e = assertThrows(ExecutionException.class, () -> RelayConnection.connect(
                    relay.address(), SslContexts.client(PinnedTrustManager.of(Set.of(relay.fingerprint())),
                            Optional.empty()), group, impatient).get(30, TimeUnit.SECONDS));
            assertInstanceOf(io.fsp.relaylink.RelayTimeoutException.class, e.getCause());
        }
    }

    @Test
    void relayStartedWithAFlipBitFaultServesABlockWhoseChecksumFails() throws Exception {
        try (RelayProcess relay = RelayProcess.withFaults(dir, SERVER.fingerprint(), "--fault", "flip-bit:1");
             RelayConnection server = connect(relay, Optional.of(SERVER));
             RelayConnection client = connect(relay, Optional.empty())) {
            assertTrue(relay.output().contains("FAULTS"), relay.output());
            TransferId id = TransferId.random();
            TokenKey key = TokenKey.random();
            List<byte[]> wire = push(server, id, key, 3);
            client.authorize(CapabilityToken.issue(key, id, Instant.now().plusSeconds(600), TokenScope.ALL))
                    .get(10, TimeUnit.SECONDS);
            List<Long> seqs = wire.stream().map(RelayIT::seqOf).toList();
            assertTrue(seqs.contains(1L), "seqs " + seqs);
            for (byte[] w : wire) {
                long seq = seqOf(w);
                ByteBuf got = client.getBlock(id, seq).get(10, TimeUnit.SECONDS);
                try {
                    if (seq == 1) {
                        assertThrows(BlockChecksumException.class, () -> Blocks.parse(got, BlockLimits.DEFAULT));
                    } else {
                        assertArrayEquals(w, ByteBufUtil.getBytes(got));
                    }
                } finally {
                    got.release();
                }
            }
        }
    }

    @Test
    void aRetainedTransferOutlivesAKilledRelayAndItsCollectorFetchesItWithTheOriginalToken() throws Exception {
        TransferId id = TransferId.random();
        TokenKey tokenKey = TokenKey.random();
        TransferKey key = TransferKey.generate(id.value(), 256, new SecureRandom());
        Instant expires = Instant.now().plus(Duration.ofDays(1));
        List<byte[]> wire;
        RelayProcess relay = RelayProcess.start(dir, SERVER.fingerprint(), "--ttl", "1s");
        try (RelayConnection server = connect(relay, Optional.of(SERVER))) {
            server.openTransfer(id, tokenKey, expires, 1L << 20, true).get(10, TimeUnit.SECONDS);
            wire = put(server, id, key, 6);
            relay.kill(); // SIGKILL right after the last OK: what was acknowledged must be on disk
        } finally {
            relay.close();
        }

        try (RelayProcess restarted = RelayProcess.start(dir, SERVER.fingerprint(), "--ttl", "1s")) {
            assertEquals(relay.fingerprint(), restarted.fingerprint());
            assertTrue(restarted.output().contains("restored retained transfer " + id + ": 6 blocks"),
                    restarted.output());
            // An idle transfer opened now expires after the 1 s TTL; once the relay dropped it, the retained one,
            // idle as long, must still be whole.
            // (Its server stays connected: a transfer ends with the connection that opened it.)
            TransferId idle = TransferId.random();
            try (RelayConnection server = connect(restarted, Optional.of(SERVER))) {
                server.openTransfer(idle, TokenKey.random(), expires, 1L << 20).get(10, TimeUnit.SECONDS);
                long expiry = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!restarted.output().contains("transfer " + idle + " expired") && System.nanoTime() < expiry) {
                    Thread.sleep(20);
                }
                assertTrue(restarted.output().contains("transfer " + idle + " expired"), restarted.output());
            }
            try (RelayConnection client = connect(restarted, Optional.empty());
                 BlockPipeline receiver = BlockPipeline.builder().transferId(id.value())
                         .checksum(ChecksumAlgorithm.CRC32C).encryption(key).build()) {
                client.authorize(CapabilityToken.issue(tokenKey, id, expires, TokenScope.ALL))
                        .get(10, TimeUnit.SECONDS);
                assertEquals(6, client.status(id).get(10, TimeUnit.SECONDS).blocks());
                List<Long> seqs = new ArrayList<>();
                for (byte[] w : wire) {
                    long seq = seqOf(w);
                    seqs.add(seq);
                    ByteBuf got = client.getBlock(id, seq).get(10, TimeUnit.SECONDS);
                    try {
                        assertArrayEquals(w, ByteBufUtil.getBytes(got));
                        Block block = Blocks.parse(got, BlockLimits.DEFAULT);
                        OpenedBlock opened = receiver.open(block);
                        try {
                            assertEquals(KNOWN.repeat(1000), opened.content().toString(StandardCharsets.UTF_8));
                        } finally {
                            opened.release();
                            block.release();
                        }
                    } finally {
                        got.release();
                    }
                }
                assertEquals(6L, client.confirm(id, seqs).get(10, TimeUnit.SECONDS));
            }
            // Collected whole, it ends (restored, it is finished): nothing of it stays on the relay's disk.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (Files.exists(restarted.store().resolve(id.toString())) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertFalse(Files.exists(restarted.store().resolve(id.toString())), restarted.output());
        }
    }

    /**
     * Regular files under {@code dir} but the store's lock, counted again when one vanished while the walk went on (the
     * relay deletes them).
     */
    private static long regularFiles(Path dir) throws java.io.IOException {
        while (true) {
            try (Stream<Path> s = Files.walk(dir)) {
                return s.filter(Files::isRegularFile).filter(p -> !p.equals(dir.resolve(".lock"))).count();
            } catch (java.io.UncheckedIOException e) {
                if (!(e.getCause() instanceof java.nio.file.NoSuchFileException)) {
                    throw e;
                }
            }
        }
    }
}

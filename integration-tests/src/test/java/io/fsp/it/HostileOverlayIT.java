package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.ControlConnection;
import io.fsp.it.harness.RelayProcess;
import io.fsp.it.harness.Reply;
import io.fsp.it.harness.ServerProcess;
import io.fsp.it.harness.Transcript;
import io.fsp.meridian.wire.Constraint;
import io.fsp.meridian.wire.MeridianCodec;
import io.fsp.meridian.wire.MeridianMessage;
import io.fsp.meridian.wire.MeridianMessage.Cookie;
import io.fsp.meridian.wire.MeridianMessage.Gossip;
import io.fsp.meridian.wire.MeridianMessage.MeasureReply;
import io.fsp.meridian.wire.MeridianMessage.MeasureRequest;
import io.fsp.meridian.wire.MeridianMessage.Ping;
import io.fsp.meridian.wire.MeridianMessage.Pong;
import io.fsp.meridian.wire.MeridianMessage.Query;
import io.fsp.meridian.wire.MeridianMessage.QueryKind;
import io.fsp.meridian.wire.MeridianMessage.QueryReply;
import io.fsp.meridian.wire.MeridianMessage.RingsReply;
import io.fsp.meridian.wire.MeridianMessage.RingsRequest;
import io.fsp.meridian.wire.MeridianMessage.ServiceRequest;
import io.fsp.meridian.wire.RingEntry;
import io.fsp.meridian.wire.WireLimits;
import io.fsp.tls.Fingerprint;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A relay process with its Meridian node on, attacked from plain UDP sockets of this test that speak the wire format
 * by hand (docs/protocol.md §4.3, "Return addresses"): a source that has not shown it receives at its address gets
 * back no more bytes than it sent, whatever it asks; one IP address answering probes from many ports takes only
 * {@code membersPerIp} ring seats, many addresses of one /24 only {@code membersPerSite}; a member's MEASURE_REPLY is
 * believed no further than the node's own RTTs allow; a query's answer goes to the socket that sent it, never to an origin written
 * in it; and a client cannot make a server send its overlay datagrams to an entry node of its choosing.
 * Each test uses its own loopback addresses, so that the per-address rate limit of one does not touch another.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HostileOverlayIT {
    private static final Pattern NODE = Pattern.compile("meridian node on udp ([0-9.]+):(\\d+)");
    private static final MeridianCodec CODEC = new MeridianCodec(WireLimits.DEFAULT);

    @TempDir
    static Path dir;
    private static RelayProcess relay;
    private static InetSocketAddress node;

    @BeforeAll
    static void startRelay() throws Exception {
        relay = RelayProcess.start(dir.resolve("relay"), new Fingerprint(new byte[32]), "--meridian", "127.0.0.1:0");
        node = nodeAddress(relay);
    }

    @AfterAll
    static void stopRelay() {
        if (relay != null) {
            relay.close();
        }
    }

    /** The UDP address the relay prints right after it listens. */
    private static InetSocketAddress nodeAddress(RelayProcess relay) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            Matcher m = NODE.matcher(relay.output());
            if (m.find()) {
                return new InetSocketAddress(m.group(1), Integer.parseInt(m.group(2)));
            }
            Thread.sleep(20); // polling for the line, not waiting before an assertion
        }
        throw new AssertionError("no meridian node line in the relay's output:\n" + relay.output());
    }

    @Test
    void anUnverifiedSourceGetsBackNoMoreBytesThanItSent() throws Exception {
        try (RawPeer attacker = new RawPeer("127.0.0.5");
             DatagramChannel victim = victim("127.0.0.3")) {
            InetSocketAddress v = (InetSocketAddress) victim.getLocalAddress();
            List<InetSocketAddress> many = Collections.nCopies(16, v);
            Map<String, MeridianMessage> requests = new LinkedHashMap<>();
            requests.put("PING", new Ping(1));
            requests.put("GOSSIP", new Gossip(Collections.nCopies(160, v)));
            requests.put("MEASURE_REQUEST", new MeasureRequest(2, many));
            requests.put("QUERY", new Query(3, QueryKind.MULTI_CONSTRAINT, 0, 8, 64, 0, v,
                    List.of(new Constraint(v, 100), new Constraint(v, 100)), List.of()));
            requests.put("RINGS_REQUEST", new RingsRequest(4));
            requests.put("SERVICE_REQUEST", new ServiceRequest(5));
            // 25 rounds of each type, without a cookie and with a made-up one: 275 datagrams, within the
            // per-address burst, so that every one is answered and the figure counts answers, not drops.
            for (int round = 0; round < 25; round++) {
                for (Map.Entry<String, MeridianMessage> r : requests.entrySet()) {
                    for (long cookie : new long[] {MeridianCodec.NO_COOKIE, 0x5EED_0000L + round}) {
                        if (cookie != MeridianCodec.NO_COOKIE && r.getValue() instanceof Ping) {
                            continue; // a PING carries no cookie
                        }
                        int out = attacker.bytesOut;
                        int in = attacker.bytesIn;
                        attacker.send(node, r.getValue(), cookie);
                        MeridianMessage answer = attacker.next();
                        attacker.countBy(r.getKey(), attacker.bytesOut - out, attacker.bytesIn - in);
                        Class<?> expected = r.getValue() instanceof Ping ? Pong.class : Cookie.class;
                        assertEquals(expected, answer.getClass(), r.getKey() + " without a valid cookie");
                    }
                }
            }
            // Everything the node did for the requests above happened before it answered this PING.
            attacker.send(node, new Ping(99), MeridianCodec.NO_COOKIE);
            assertInstanceOf(Pong.class, attacker.next());
            assertNull(attacker.pending(), "one answer per request, nothing more");
            assertNull(victim.receive(ByteBuffer.allocate(8192)), "nothing went to the addresses the requests named");

            System.out.printf("overlay amplification from an unverified source: %d requests, %d bytes sent, %d bytes"
                    + " received (%.2fx); by type [sent, received]: %s%n", attacker.datagramsOut, attacker.bytesOut, attacker.bytesIn,
                    (double) attacker.bytesIn / attacker.bytesOut, attacker.byType);
            assertTrue(attacker.bytesIn <= attacker.bytesOut, attacker.bytesIn + " bytes back for " + attacker.bytesOut);

            // The same source, once it echoes its cookie, is answered in full.
            long cookie = attacker.cookieFrom(node);
            attacker.send(node, new RingsRequest(6), cookie);
            assertInstanceOf(RingsReply.class, attacker.next());
        }
    }

    @Test
    void oneAddressAnsweringFromManyPortsTakesAFewRingSeats() throws Exception {
        List<RawPeer> flood = new ArrayList<>();
        try (RawPeer asker = new RawPeer("127.0.0.8")) {
            for (int i = 0; i < 20; i++) {
                RawPeer p = new RawPeer("127.0.0.2");
                flood.add(p);
                long cookie = p.cookieFrom(node);
                p.send(node, new Gossip(List.of()), cookie);
                // The node probes the gossip's sender: answered (by next()), so it is measured and offered to the rings.
                assertTrue(p.pingsAnswered > 0 || p.nextPingOrNull() != null, "port " + i + " was probed");
            }
            long cookie = asker.cookieFrom(node);
            asker.send(node, new RingsRequest(7), cookie);
            RingsReply rings = (RingsReply) asker.next();
            long seats = rings.entries().stream().map(RingEntry::peer)
                    .filter(a -> a.getAddress().getHostAddress().equals("127.0.0.2")).count();
            System.out.println("ring members from 127.0.0.2 after 20 of its ports answered probes: " + seats);
            assertEquals(3, seats, "members on one IP address (membersPerIp): " + rings.entries());
        } finally {
            flood.forEach(RawPeer::close);
        }
    }

    /** One /24 answering probes from many of its addresses: as many seats as one site may take (membersPerSite). */
    @Test
    void manyAddressesOfOneNetworkTakeAFewRingSeats() throws Exception {
        List<RawPeer> flood = new ArrayList<>();
        try (RawPeer asker = new RawPeer("127.0.0.9")) {
            for (int i = 1; i <= 20; i++) {
                RawPeer p = new RawPeer("127.0.9." + i);
                flood.add(p);
                long cookie = p.cookieFrom(node);
                p.send(node, new Gossip(List.of()), cookie);
                assertTrue(p.pingsAnswered > 0 || p.nextPingOrNull() != null, "127.0.9." + i + " was probed");
            }
            long cookie = asker.cookieFrom(node);
            asker.send(node, new RingsRequest(8), cookie);
            RingsReply rings = (RingsReply) asker.next();
            long seats = rings.entries().stream().map(RingEntry::peer)
                    .filter(a -> a.getAddress().getHostAddress().startsWith("127.0.9.")).count();
            System.out.println("ring members from 127.0.9.0/24 after 20 of its addresses answered probes: " + seats);
            assertEquals(4, seats, "members in one /24 (membersPerSite): " + rings.entries());
        } finally {
            flood.forEach(RawPeer::close);
        }
    }

    /**
     * A ring member 0.1 ms from the node claims, in its MEASURE_REPLY, to be 0.5 ms from a target the node itself
     * measures 100 ms away: by the triangle inequality it is at least 99 ms from it, and the node believes no less than
     * half that. So a multi-constraint query asking for a node within 10 ms of the target gets no hit from the claim.
     */
    @Test
    void aMemberCannotClaimToBeCloserToATargetThanTheNodesOwnRttsAllow() throws Exception {
        try (RawPeer liar = new RawPeer("127.0.10.1");
             RawPeer target = new RawPeer("127.0.11.1");
             RawPeer asker = new RawPeer("127.0.12.1")) {
            liar.send(node, new Gossip(List.of()), liar.cookieFrom(node));
            assertTrue(liar.pingsAnswered > 0 || liar.nextPingOrNull() != null, "the liar was probed");
            long cookie = asker.cookieFrom(node);
            asker.send(node, new RingsRequest(9), cookie);
            assertTrue(((RingsReply) asker.next()).entries().stream().anyMatch(e -> e.peer().equals(liar.address())),
                    "the liar is a ring member");

            Thread targetThread = target.answerPingsAfter(100);
            Thread liarThread = liar.serve(m -> {
                if (m instanceof MeasureRequest r) {
                    return new MeasureReply(r.requestId(), Collections.nCopies(r.targets().size(), 0.5), 0);
                }
                if (m instanceof Query q) {
                    return new QueryReply(q.queryId(), q.hopsTaken() + 1, q.probes(), List.of()); // forwarded: no hit
                }
                return null;
            });
            asker.send(node, new Query(0x7E57L, QueryKind.MULTI_CONSTRAINT, 0, 8, 1, 0, asker.address(),
                    List.of(new Constraint(target.address(), 10)), List.of()), cookie);
            QueryReply reply = (QueryReply) asker.next();
            System.out.println("a query for a node within 10 ms of a target 100 ms away, with a member claiming 0.5 ms:"
                    + " " + reply.hits());
            assertEquals(List.of(), reply.hits(), "the claim is believed no lower than half the triangle bound, 49 ms");
            target.close();
            liar.close();
            targetThread.join(5000);
            liarThread.join(5000);
        }
    }

    @Test
    void aQueryIsAnsweredToTheSocketThatSentItNotToTheOriginItNames() throws Exception {
        try (RawPeer asker = new RawPeer("127.0.0.6");
             DatagramChannel victim = victim("127.0.0.3")) {
            long cookie = asker.cookieFrom(node);
            Query forged = new Query(0x0123_4567L, QueryKind.CLOSEST, 0, 8, 1, 0,
                    (InetSocketAddress) victim.getLocalAddress(), List.of(new Constraint(asker.address(), 0)), List.of());
            asker.send(node, forged, cookie);
            MeridianMessage answer = asker.next(); // PINGs of the node measuring the target are answered meanwhile
            assertInstanceOf(QueryReply.class, answer);
            assertEquals(0x0123_4567L, ((QueryReply) answer).queryId());
            // A node that answered the origin did so before or with the answer to the sender.
            assertNull(victim.receive(ByteBuffer.allocate(8192)), "the origin named in the query got nothing");
        }
    }

    @Test
    void aClientCannotAimTheServersOverlayDatagramsAtAnAddressOfItsChoice() throws Exception {
        Path root = Files.createDirectories(dir.resolve("root"));
        Transcript transcript = new Transcript();
        String relayAddress = "127.0.0.1:" + relay.address().getPort();
        try (DatagramChannel victim = victim("127.0.0.3");
             ServerProcess server = ServerProcess.start(root, List.of("--listen", "127.0.0.1:0", "--root", root.toString(),
                     "--user", "alice:alice-secret", "--state-dir", dir.resolve("state").toString(), "--allow-plain-login",
                     "--fsp-without-tls", "--meridian-entry", "127.0.0.1:" + node.getPort(),
                     "--relay", relayAddress + "=" + relay.fingerprint()), 1);
             ControlConnection c = ControlConnection.login(server.ipv4(), "alice", "alice-secret", transcript)) {
            InetSocketAddress v = (InetSocketAddress) victim.getLocalAddress();
            Reply refused = c.send("FSPO relays=2 near-sender=50 near-client=50 client-probe=9 meridian-entry=127.0.0.3:"
                    + v.getPort());
            refused.assertCode(501);
            assertTrue(refused.text().contains("meridian-entry: 127.0.0.3:" + v.getPort()), refused.text());
            c.send("FSPO meridian-entry=127.0.0.1:" + node.getPort()).assertCode(200); // the server's own entry
            c.send("FSPO meridian-entry=" + relayAddress).assertCode(200); // one of its relays
            assertNull(victim.receive(ByteBuffer.allocate(8192)), "nothing was sent to the refused entry");
        }
    }

    private static DatagramChannel victim(String ip) throws IOException {
        DatagramChannel channel = DatagramChannel.open();
        channel.bind(new InetSocketAddress(ip, 0));
        channel.configureBlocking(false);
        return channel;
    }

    /**
     * A Meridian endpoint written by hand: sends what it is told, answers PINGs while it waits, counts bytes.
     */
    private static final class RawPeer implements AutoCloseable {
        final DatagramSocket socket;
        int bytesOut;
        int bytesIn;
        int datagramsOut;
        int pingsAnswered;
        /** Bytes sent and received, by request type. */
        final Map<String, List<Integer>> byType = new LinkedHashMap<>();

        RawPeer(String ip) throws IOException {
            socket = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(ip), 0));
            socket.setSoTimeout(15_000);
        }

        InetSocketAddress address() {
            return (InetSocketAddress) socket.getLocalSocketAddress();
        }

        void countBy(String type, int sent, int received) {
            byType.merge(type, List.of(sent, received), (a, b) -> List.of(a.get(0) + b.get(0), a.get(1) + b.get(1)));
        }

        void send(InetSocketAddress to, MeridianMessage message, long cookie) throws IOException {
            ByteBuf buf = CODEC.encode(message, cookie, UnpooledByteBufAllocator.DEFAULT);
            byte[] bytes = ByteBufUtil.getBytes(buf);
            buf.release();
            socket.send(new DatagramPacket(bytes, bytes.length, to));
            if (!(message instanceof Pong)) {
                bytesOut += bytes.length;
                datagramsOut++;
            }
        }

        /** The next datagram that is not a PING; PINGs are answered on the way (their bytes are not counted). */
        MeridianMessage next() throws IOException {
            while (true) {
                MeridianMessage m = receive(15_000);
                if (m == null) {
                    throw new AssertionError("no answer within 15 s");
                }
                if (!(m instanceof Ping)) {
                    return m;
                }
            }
        }

        /** A PING that arrives within 15 s (answered), or null. */
        MeridianMessage nextPingOrNull() throws IOException {
            MeridianMessage m = receive(15_000);
            return m instanceof Ping ? m : null;
        }

        /** A datagram already waiting (none: null), without waiting for one. */
        MeridianMessage pending() throws IOException {
            return receive(1);
        }

        private MeridianMessage receive(int timeoutMs) throws IOException {
            byte[] bytes = new byte[WireLimits.DEFAULT.maxMessageBytes() + 1];
            DatagramPacket packet = new DatagramPacket(bytes, bytes.length);
            socket.setSoTimeout(timeoutMs);
            try {
                socket.receive(packet);
            } catch (SocketTimeoutException e) {
                return null;
            }
            ByteBuf in = Unpooled.wrappedBuffer(bytes, 0, packet.getLength());
            MeridianMessage m = CODEC.decode(in);
            in.release();
            if (m instanceof Ping p) {
                send((InetSocketAddress) packet.getSocketAddress(), new Pong(p.nonce()), MeridianCodec.NO_COOKIE);
                pingsAnswered++;
            } else {
                bytesIn += packet.getLength();
            }
            return m;
        }

        /** Answers every PING {@code delayMs} late, on a thread of its own, until the socket is closed. */
        Thread answerPingsAfter(long delayMs) {
            return background(() -> {
                MeridianMessage m = decode();
                if (m instanceof Ping p) {
                    Thread.sleep(delayMs);
                    send(lastFrom, new Pong(p.nonce()), MeridianCodec.NO_COOKIE);
                }
            });
        }

        /** Answers PINGs at once and whatever {@code answer} says to the rest, on a thread of its own, until closed. */
        Thread serve(java.util.function.Function<MeridianMessage, MeridianMessage> answer) {
            return background(() -> {
                MeridianMessage m = decode();
                MeridianMessage reply = m instanceof Ping p ? new Pong(p.nonce()) : m == null ? null : answer.apply(m);
                if (reply != null) {
                    send(lastFrom, reply, MeridianCodec.NO_COOKIE);
                }
            });
        }

        /** The source of the datagram {@link #decode} read last. */
        private InetSocketAddress lastFrom;

        /** The next datagram, decoded (null if it is not one); blocks without a timeout. */
        private MeridianMessage decode() throws IOException {
            byte[] bytes = new byte[WireLimits.DEFAULT.maxMessageBytes() + 1];
            DatagramPacket packet = new DatagramPacket(bytes, bytes.length);
            socket.setSoTimeout(0);
            socket.receive(packet);
            lastFrom = (InetSocketAddress) packet.getSocketAddress();
            ByteBuf in = Unpooled.wrappedBuffer(bytes, 0, packet.getLength());
            try {
                return CODEC.decode(in);
            } catch (RuntimeException e) {
                return null;
            } finally {
                in.release();
            }
        }

        private interface Step {
            void run() throws Exception;
        }

        private Thread background(Step step) {
            Thread t = new Thread(() -> {
                while (!socket.isClosed()) {
                    try {
                        step.run();
                    } catch (Exception e) {
                        return; // closed
                    }
                }
            }, "raw-peer " + address());
            t.setDaemon(true);
            t.start();
            return t;
        }

        /** Asks {@code node} for a cookie the way any first request does: answered with a COOKIE. */
        long cookieFrom(InetSocketAddress node) throws IOException {
            send(node, new RingsRequest(0), MeridianCodec.NO_COOKIE);
            return ((Cookie) next()).cookie();
        }

        @Override
        public void close() {
            socket.close();
        }
    }
}

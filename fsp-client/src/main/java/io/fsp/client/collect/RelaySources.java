package io.fsp.client.collect;

import io.fsp.client.collect.BlockLifecycle.Action;
import io.fsp.client.collect.BlockLifecycle.Next;
import io.fsp.extension.Announcement;
import io.fsp.extension.SelectionRequest;
import io.fsp.net.HostPort;
import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayConnectionConfig;
import io.fsp.relaylink.RelayTimeoutException;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.tls.SslContexts;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/**
 * The relays the server placed blocks on: one connection each (connected and authorised with the transfer's
 * token as soon as the relay is announced), {@code streams} fetches at a time per relay, and the confirmations
 * that let a relay free what was verified. What a fetch ends in is reported to the block's {@link BlockLifecycle}.
 */
final class RelaySources implements AutoCloseable {
    /** Where a fetch's outcome goes: the wire bytes, or what the block's lifecycle says to do after a failure. */
    interface Outcome {
        void fetched(BlockLifecycle block, ByteBuf wire, BlockSource source);

        void next(BlockLifecycle block, Next next);
    }

    /** A relay: its connection (connected and authorised), its fetch slots and the confirmations for it. */
    private record Source(CompletableFuture<RelayConnection> connection, Semaphore slots, Confirmations confirmations) {
    }

    /**
     * The confirmations for one relay: one is sent at once when none is on its way, and those that come while one
     * is are gathered and sent together when it is answered, so a relay is asked one round trip at a time however
     * many small blocks are done meanwhile.
     */
    private static final class Confirmations {
        private final CompletableFuture<RelayConnection> connection;
        private final InetSocketAddress address;
        /** Blocks this relay could not be told to free (it was down or failed): it keeps them. Guarded by this. */
        private long unconfirmed;
        private List<Long> gathered = new ArrayList<>();
        /** The confirmation on its way, or null. Guarded by this. */
        private CompletableFuture<?> onTheWay;

        Confirmations(CompletableFuture<RelayConnection> connection, InetSocketAddress address) {
            this.connection = connection;
            this.address = address;
        }

        synchronized void add(TransferId transferId, long seq) {
            gathered.add(seq);
            if (onTheWay == null) {
                sendGathered(transferId);
            }
        }

        /** Holding the lock. */
        private void sendGathered(TransferId transferId) {
            List<Long> seqs = gathered;
            gathered = new ArrayList<>();
            CompletableFuture<?> c = connection.thenCompose(conn -> conn.confirm(transferId, seqs)).exceptionally(e -> {
                synchronized (this) {
                    unconfirmed += seqs.size();
                }
                return 0L;
            });
            onTheWay = c;
            c.whenComplete((n, e) -> {
                synchronized (this) {
                    onTheWay = null;
                    if (!gathered.isEmpty()) {
                        sendGathered(transferId);
                    }
                    notifyAll();
                }
            });
        }

        /** Waits until nothing is gathered or on its way, or until {@code deadline} ({@link System#nanoTime}). */
        synchronized void awaitSent(long deadline) throws InterruptedException {
            long left;
            while (onTheWay != null && (left = deadline - System.nanoTime()) > 0) {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }
    }

    private final Map<Integer, Source> relays = new TreeMap<>();
    /** host:port of each announced relay, for what is said of it later. */
    private final Map<Integer, String> names = new ConcurrentHashMap<>();
    private final int streams;
    private final Duration relayTimeout;
    private final Duration connectTimeout;
    private EventLoopGroup loops;

    private final boolean clearLinks;

    /** @param clearLinks blocks over clear links beside the TLS connections (docs/protocol.md §3.7), else over TLS */
    RelaySources(int streams, Duration relayTimeout, Duration connectTimeout, boolean clearLinks) {
        this.clearLinks = clearLinks;
        this.streams = streams;
        this.relayTimeout = relayTimeout;
        this.connectTimeout = connectTimeout;
    }

    /** A {@code RELAY} line: {@link #add(int, InetSocketAddress, Fingerprint, CapabilityToken, boolean)} of its relay. */
    void add(Announcement.Relay r, CapabilityToken token, boolean sealed) {
        add(r.index(), new InetSocketAddress(r.host(), r.port()), r.fingerprint(), token, sealed);
        names.put(r.index(), new HostPort(r.host(), r.port()).toString());
    }

    /**
     * What the server said of a relay it left out ({@code REFUSED}) or that takes no more blocks ({@code STOPPED}), as
     * the client's own output says it (the origin's log may be gone); null for other lines.
     */
    String said(Announcement line) {
        if (line instanceof Announcement.Refused r) {
            return "relay " + new HostPort(r.host(), r.port()) + " left out of the transfer: " + r.reason() + ": " + r.text();
        }
        if (line instanceof Announcement.Stopped st) {
            return "relay " + st.index() + " (" + names.getOrDefault(st.index(), "?")
                    + ") takes no more of the transfer's blocks: " + st.reason() + ": " + st.text();
        }
        return null;
    }

    /**
     * A {@code RELAY} line: connects to the relay at {@code address}, pinned to {@code fingerprint}, and authorises.
     * Blocks come over a clear link only when they are {@code sealed}: a transfer with cipher=none keeps them on TLS.
     *
     * @throws IllegalArgumentException an index announced before, or more relays than a transfer may have
     */
    void add(int index, InetSocketAddress address, Fingerprint fingerprint, CapabilityToken token, boolean sealed) {
        if (relays.containsKey(index)) {
            throw new IllegalArgumentException("RELAY " + index + ": announced twice (expected: each index once)");
        }
        if (relays.size() >= SelectionRequest.MAX_RELAYS) {
            throw new IllegalArgumentException("RELAY " + index + ": more than " + SelectionRequest.MAX_RELAYS
                    + " relays (expected: at most " + SelectionRequest.MAX_RELAYS + " per transfer)");
        }
        if (loops == null) {
            loops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        }
        RelayConnectionConfig config = RelayConnectionConfig.DEFAULT.withConnectTimeout(connectTimeout)
                .withRequestTimeout(relayTimeout).withClearLinks(clearLinks && sealed);
        CompletableFuture<RelayConnection> connection;
        try {
            // HELLO, AUTHORIZE and the clear link's request go out together: a relay far away costs fewer round trips
            connection = RelayConnection.connect(address, SslContexts.client(PinnedTrustManager.of(Set.of(fingerprint)),
                    Optional.empty()), loops, config, token);
            connection.thenRun(() -> Collector.milestone("relay " + index + " connected and authorized"));
        } catch (SSLException e) {
            connection = CompletableFuture.failedFuture(e);
        }
        relays.put(index, new Source(connection, new Semaphore(streams), new Confirmations(connection, address)));
    }

    int count() {
        return relays.size();
    }

    /**
     * By relay address, how many blocks a relay could not be told to free (down, or its connection failed): it keeps
     * them until they expire or {@code fsp release} frees them. Complete once {@link #close} returned.
     */
    Map<String, Long> unconfirmed() {
        Map<String, Long> out = new TreeMap<>();
        for (Source r : relays.values()) {
            synchronized (r.confirmations()) {
                long n = r.confirmations().unconfirmed + r.confirmations().gathered.size(); // never sent: as good as lost
                if (n > 0) {
                    InetSocketAddress a = r.confirmations().address;
                    out.merge(a.getHostString() + ":" + a.getPort(), n, Long::sum);
                }
            }
        }
        return out;
    }

    /**
     * Fetches the block from the relay its lifecycle names, on {@code fetchers}, once a fetch slot of that relay is
     * free; a relay that lets a request wait out the relay timeout is not asked again (see {@link BlockLifecycle}).
     */
    void fetch(BlockLifecycle block, TransferId transferId, Executor fetchers, Outcome outcome) {
        Source relay = relays.get(block.announcement().relay());
        fetchers.execute(() -> {
            try {
                relay.slots().acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                outcome.next(block, block.fetchFailed("interrupted"));
                return;
            }
            try {
                Next next = block.slotAcquired();
                if (next.action() != Action.ASK_RELAY) {
                    outcome.next(block, next);
                    return;
                }
                BlockSource source = block.source();
                RelayConnection c = relay.connection().get(connectTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
                ByteBuf wire = c.getBlock(transferId, block.seq()).get(relayTimeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
                outcome.fetched(block, wire, source);
            } catch (ExecutionException e) {
                String cause = TransferStatistics.describe(e.getCause());
                outcome.next(block, e.getCause() instanceof RelayTimeoutException
                        ? block.relayTimedOut(cause) : block.fetchFailed(cause));
            } catch (TimeoutException e) {
                outcome.next(block, block.relayTimedOut("no answer within " + relayTimeout.toMillis() + " ms"));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                outcome.next(block, block.fetchFailed("interrupted"));
            } finally {
                relay.slots().release();
            }
        });
    }

    /**
     * Tells every relay that holds the block that it may free it, including a replica's relay whose connection is
     * still being made (best effort: a relay that cannot be reached keeps the block until it expires).
     */
    void confirm(TransferId transferId, AnnouncedBlock a) {
        for (int r : a.holders().isEmpty() ? List.of(a.relay()) : a.holders()) {
            Source relay = relays.get(r);
            if (relay != null) {
                relay.confirmations().add(transferId, a.seq());
            }
        }
    }

    /** Waits up to the relay timeout for the confirmations still on their way. */
    void awaitConfirmations() {
        long deadline = System.nanoTime() + relayTimeout.toNanos();
        try {
            for (Source r : relays.values()) {
                r.confirmations().awaitSent(deadline);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits up to the relay timeout for the confirmations still on their way, then closes every connection. Without
     * the wait, the last confirmations of a transfer died with their connection, and a retained transfer's relays
     * kept those blocks until its retention ran out.
     */
    @Override
    public void close() {
        awaitConfirmations();
        for (Source r : relays.values()) {
            r.connection().thenAccept(RelayConnection::close);
        }
        if (loops != null) {
            loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
    }
}

package io.fsp.server.stripe;

import io.fsp.relaylink.RelayClosedException;
import io.fsp.relaylink.RelayConnection;
import io.fsp.server.select.RelayEndpoint;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connections to relays kept open between transfers. A transfer on a kept connection starts without a TCP
 * connect, a TLS handshake and HELLO at each relay: three round trips per relay on a wide-area link, and on
 * any link the relay's first push arrives while a fresh connection would still be shaking hands.
 *
 * <p>A connection serves one transfer at a time (its push window is that transfer's back-pressure) and
 * comes back when the transfer has placed every block. One that a transfer gave up on is closed, not kept;
 * one that the relay closes while it waits here (the relay's idle timeout) drops out by itself. A relay
 * {@linkplain #retire retired} from the static list keeps no connection: its idle ones are closed, and those
 * its transfers still use are closed when they come back.
 */
final class RelayPool implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RelayPool.class);
    /** Idle connections kept per relay: enough for a few transfers at once, not a connection per past one. */
    static final int MAX_IDLE_PER_RELAY = 4;

    /** Opens a new connection to a relay (TLS, HELLO, WELCOME). */
    interface Connector {
        CompletableFuture<RelayConnection> connect(RelayEndpoint relay);
    }

    private final Connector connector;
    private final Map<RelayEndpoint, Deque<RelayConnection>> idle = new HashMap<>();
    private final Set<RelayEndpoint> retired = new HashSet<>();
    private boolean closed;

    RelayPool(Connector connector) {
        this.connector = connector;
    }

    /**
     * A connection to {@code relay} on which {@code start} (typically OPEN_TRANSFER) has succeeded: a kept one
     * if there is one, else a new one. A kept connection the relay closed meanwhile is replaced by a new one.
     * When {@code start} fails otherwise, the connection is closed and the future fails.
     */
    CompletableFuture<RelayConnection> take(RelayEndpoint relay, Function<RelayConnection, CompletableFuture<Void>> start) {
        RelayConnection kept = poll(relay);
        if (kept == null) {
            return connector.connect(relay).thenCompose(c -> startOn(c, start));
        }
        return startOn(kept, start).exceptionallyCompose(error -> unwrap(error) instanceof RelayClosedException
                ? connector.connect(relay).thenCompose(c -> startOn(c, start))
                : CompletableFuture.failedFuture(error));
    }

    /** Opens connections to {@code relays} in the background, so the first transfer finds them ready. */
    void warm(Collection<RelayEndpoint> relays) {
        synchronized (this) {
            retired.removeAll(relays); // back on the list
        }
        for (RelayEndpoint r : relays) {
            connector.connect(r).whenComplete((c, error) -> {
                if (error != null) {
                    log.info("relay {} not reachable yet ({}); a transfer connects again", r.hostPort(),
                            unwrap(error).getMessage());
                } else {
                    give(r, c);
                }
            });
        }
    }

    /** Takes back a connection whose transfer placed every block; it waits here for the next transfer. */
    void give(RelayEndpoint relay, RelayConnection c) {
        if (!c.isOpen()) {
            return;
        }
        synchronized (this) {
            Deque<RelayConnection> q = idle.computeIfAbsent(relay, r -> new ArrayDeque<>());
            if (!closed && !retired.contains(relay) && q.size() < MAX_IDLE_PER_RELAY) {
                q.addLast(c);
                c.closeFuture().thenRun(() -> drop(relay, c));
                return;
            }
        }
        c.close();
    }

    /**
     * {@code relays} left the static list: their idle connections are closed now, and a connection a transfer
     * gives back later is closed instead of kept. {@link #warm} takes a relay back.
     */
    void retire(Collection<RelayEndpoint> relays) {
        List<RelayConnection> closing = new ArrayList<>();
        synchronized (this) {
            for (RelayEndpoint r : relays) {
                retired.add(r);
                Deque<RelayConnection> q = idle.remove(r);
                if (q != null) {
                    closing.addAll(q);
                }
            }
        }
        if (!closing.isEmpty()) {
            log.info("closing {} kept connection(s) to relays no longer listed: {}", closing.size(), relays);
        }
        closing.forEach(RelayConnection::close);
    }

    /** Idle connections kept for {@code relay} (for tests and logs). */
    synchronized int idle(RelayEndpoint relay) {
        Deque<RelayConnection> q = idle.get(relay);
        return q == null ? 0 : q.size();
    }

    private synchronized RelayConnection poll(RelayEndpoint relay) {
        Deque<RelayConnection> q = idle.get(relay);
        for (RelayConnection c; q != null && (c = q.pollLast()) != null; ) { // the most recently used: least likely idled out
            if (c.isOpen()) {
                return c;
            }
        }
        return null;
    }

    private synchronized void drop(RelayEndpoint relay, RelayConnection c) {
        Deque<RelayConnection> q = idle.get(relay);
        if (q != null) {
            q.remove(c);
        }
    }

    private static CompletableFuture<RelayConnection> startOn(RelayConnection c,
                                                            Function<RelayConnection, CompletableFuture<Void>> start) {
        return start.apply(c).handle((ok, error) -> {
            if (error != null) {
                c.close();
                throw error instanceof CompletionException ce ? ce : new CompletionException(error);
            }
            return c;
        });
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    @Override
    public void close() {
        List<RelayConnection> all = new ArrayList<>();
        synchronized (this) {
            closed = true;
            idle.values().forEach(all::addAll);
            idle.clear();
        }
        all.forEach(RelayConnection::close);
    }
}

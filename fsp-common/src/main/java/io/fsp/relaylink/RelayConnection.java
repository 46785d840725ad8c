package io.fsp.relaylink;

import io.fsp.relaylink.wire.RelayMessage;
import io.fsp.relaylink.wire.RelayRole;
import io.fsp.tls.Fingerprint;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TokenKey;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * One TLS connection to a relay, usable from any thread: a {@link RelayLink} and its two roles. A server, {@link
 * Pushing}, {@linkplain #openTransfer opens} a transfer and {@linkplain #putBlock pushes} blocks: at most {@code
 * pushWindowBytes} are unacknowledged at a time, the rest wait here, and {@link #whenWritable()} tells a striping
 * engine when this relay can take more (a full relay delays its acknowledgements, so a slow or full relay gets fewer
 * blocks). A client, {@link Fetching}, {@linkplain #authorize presents its token}, {@linkplain #getBlock fetches}
 * blocks and {@linkplain #confirm confirms} them. Any other request goes out through {@link #request}: a new frame
 * either side sends needs no method here.
 *
 * <p>Every operation returns a future that fails with a {@link RelayException}: {@link
 * RelayClosedException} (dead relay), {@link RelayTimeoutException} (no answer), {@link
 * RelayRefusedException} / {@link TokenRefusedException} (ERROR from the relay), {@link
 * BlockNotFoundException}. Futures complete on the connection's event loop: keep callbacks short, or chain
 * with {@code thenApplyAsync(…, executor)} for disk or CPU work.
 */
public final class RelayConnection implements AutoCloseable {
    private final RelayLink link;
    private final Pushing pushing;
    private final Fetching fetching;

    private RelayConnection(RelayLink link) {
        this.link = link;
        this.pushing = new Pushing(link);
        this.fetching = new Fetching(link);
        link.listen(pushing);
    }

    /**
     * Connects to {@code relay} over TLS (with {@code ssl}, which pins the relay and, for a server, presents
     * its certificate), says HELLO, and completes once the relay has answered WELCOME.
     */
    public static CompletableFuture<RelayConnection> connect(InetSocketAddress relay, SslContext ssl,
                                                             EventLoopGroup group, RelayConnectionConfig config) {
        return connect(relay, ssl, group, config, null);
    }

    /**
     * As {@link #connect(InetSocketAddress, SslContext, EventLoopGroup, RelayConnectionConfig)}, then
     * {@link #authorize}: but HELLO, AUTHORIZE and the clear link's BIND_REQUEST go out together once TLS is up (the
     * relay answers them in order), so a relay far away costs two round trips fewer. Completes once the token is
     * accepted and the clear link bound; on a refusal the connection is closed.
     */
    public static CompletableFuture<RelayConnection> connect(InetSocketAddress relay, SslContext ssl,
                                                             EventLoopGroup group, RelayConnectionConfig config,
                                                             CapabilityToken token) {
        return RelayLink.connect(relay, ssl, group, config, token, RelayConnection::new);
    }

    /** What the relay lets this connection do: SERVER when it trusted our certificate. */
    public RelayRole role() {
        return link.role();
    }

    public InetSocketAddress relay() {
        return link.relay();
    }

    /**
     * The SHA-256 fingerprint of the certificate the relay presented. A server that reached a relay by its
     * address can announce this to the client, which then pins it.
     */
    public Fingerprint relayFingerprint() {
        return link.relayFingerprint();
    }

    public boolean isOpen() {
        return link.isOpen();
    }

    /** Completes when the connection is closed, for whatever reason. */
    public CompletableFuture<Void> closeFuture() {
        return link.closeFuture();
    }

    // ---------------------------------------------------------------- server side

    /**
     * Registers a transfer and its token key; blocks can be put once this completes. {@code space} is the most
     * block bytes this connection's server will push to the relay for the transfer: the relay reserves room for
     * them (or refuses the transfer, {@code NO_SPACE}) and refuses blocks beyond ({@code SPACE_EXCEEDED}).
     */
    public CompletableFuture<Void> openTransfer(TransferId transferId, TokenKey key, Instant expiresAt, long space) {
        return openTransfer(transferId, key, expiresAt, space, false);
    }

    /**
     * As {@link #openTransfer(TransferId, TokenKey, Instant, long)}; a {@code retained} transfer is kept on the
     * relay's disk until {@code expiresAt}, across restarts, for a collector that comes later (docs/protocol.md §3.3).
     */
    public CompletableFuture<Void> openTransfer(TransferId transferId, TokenKey key, Instant expiresAt, long space,
                                                boolean retained) {
        return request(id -> new RelayMessage.OpenTransfer(id, transferId, key, expiresAt, space, retained), Void.class);
    }

    /**
     * Pushes one block; takes ownership of {@code block} (released once written or on failure). Completes
     * when the relay has stored it, which is the server's cue that the block may be announced. To place the
     * block elsewhere should this fail, pass {@code block.retainedDuplicate()} and keep the original until
     * the future completes.
     */
    public CompletableFuture<Void> putBlock(TransferId transferId, long seq, ByteBuf block) {
        return pushing.putBlock(transferId, seq, block);
    }

    /**
     * Completes when this connection has room in its push window (nothing queued, fewer than {@code
     * pushWindowBytes} unacknowledged), at once if it has now; fails if the connection is closed.
     */
    public CompletableFuture<Void> whenWritable() {
        return pushing.whenWritable();
    }

    /**
     * The first of {@code relays} with room in its push window: first-come-first-served striping gives the
     * next block to it, so faster relays get more. Fails only when every connection is closed.
     */
    public static CompletableFuture<RelayConnection> firstWritable(Collection<RelayConnection> relays) {
        CompletableFuture<RelayConnection> first = new CompletableFuture<>();
        if (relays.isEmpty()) {
            first.completeExceptionally(new IllegalArgumentException("relays: none (expected: at least one)"));
            return first;
        }
        AtomicInteger failed = new AtomicInteger();
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        for (RelayConnection r : relays) {
            CompletableFuture<Void> w = r.whenWritable();
            waits.add(w);
            w.whenComplete((ok, error) -> {
                if (error == null) {
                    first.complete(r);
                } else if (!(error instanceof CancellationException)
                        && failed.incrementAndGet() == relays.size()) {
                    first.completeExceptionally(error);
                }
            });
        }
        // The relays that did not win stop waiting, so a long-full relay collects no waiters.
        first.whenComplete((r, error) -> waits.forEach(w -> w.cancel(false)));
        return first;
    }

    /**
     * The shortest time a request without block data took to be answered on this connection (OPEN_TRANSFER,
     * CONFIRM, …): the round trip to the relay, or 0 before any was answered.
     */
    public long minRoundTripNanos() {
        return link.minRoundTripNanos();
    }

    /** Block bytes pushed but not yet acknowledged plus those waiting here (a rough load figure). */
    public long unacknowledgedBytes() {
        return pushing.unacknowledgedBytes();
    }

    /**
     * Sets the push window for the blocks pushed from now on: a connection kept for several transfers serves
     * each with a window fitted to its block size.
     */
    public void pushWindowBytes(long bytes) {
        pushing.pushWindowBytes(bytes);
    }

    /** Drops the transfer and all its blocks at the relay. */
    public CompletableFuture<Void> abortTransfer(TransferId transferId) {
        return request(id -> new RelayMessage.AbortTransfer(id, transferId), Void.class);
    }

    /**
     * Tells the relay that this server pushes nothing more into the transfer: its reservation there shrinks to the
     * blocks the relay holds (a transfer that holds none ends).
     */
    public CompletableFuture<Void> finishTransfer(TransferId transferId) {
        return request(id -> new RelayMessage.FinishTransfer(id, transferId), Void.class);
    }

    // ---------------------------------------------------------------- client side

    /** Presents a capability token; the relay checks it and remembers it for this connection. */
    public CompletableFuture<Void> authorize(CapabilityToken token) {
        return fetching.authorize(token);
    }

    /**
     * Fetches one block: the bytes exactly as the server put them. The caller owns (and must release) the
     * buffer. Fails with {@link BlockNotFoundException} if the relay does not hold it. Requests may be
     * pipelined; the relay answers them in order. Every answer is read as it arrives, so bound the number of
     * outstanding gets (e.g. by the writer's queue depth) to bound memory.
     */
    public CompletableFuture<ByteBuf> getBlock(TransferId transferId, long seq) {
        return fetching.getBlock(transferId, seq);
    }

    /** Tells the relay these blocks are safe on the client's disk; completes with how many it freed. */
    public CompletableFuture<Long> confirm(TransferId transferId, Collection<Long> seqs) {
        return fetching.confirm(transferId, seqs);
    }

    /**
     * Which of {@code seqs} the relay still holds (it checks each is whole in memory or on its disk), asked in
     * batches of {@link RelayLimits#MAX_CONFIRM_SEQS}; frees nothing. Needs a token that may read them all.
     */
    public CompletableFuture<Set<Long>> holds(TransferId transferId, Collection<Long> seqs) {
        return fetching.holds(transferId, seqs);
    }

    /** What the relay holds of the transfer (needs a token for it, or a server connection). */
    public CompletableFuture<RelayMessage.Status> status(TransferId transferId) {
        return request(id -> new RelayMessage.StatusRequest(id, transferId), RelayMessage.Status.class);
    }

    // ---------------------------------------------------------------- any request

    /**
     * Sends a request without block bytes, {@code make} given its id, and completes with the relay's answer: null for
     * OK ({@code answer} {@code Void.class}), else the answer's message. A frame either side sends needs no method of
     * its own: the methods above are this with the frame's fields, except where a role keeps state (the push window,
     * the clear link, batches) or a block's buffer is handed over.
     */
    public <T> CompletableFuture<T> request(IntFunction<? extends RelayMessage> make, Class<T> answer) {
        return link.request(make, link.config().requestTimeout(), answer);
    }

    /** Closes the connection; pending operations fail with {@link RelayClosedException}. */
    @Override
    public void close() {
        link.close();
    }
}

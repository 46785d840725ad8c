package io.fsp.server.stripe;

import io.fsp.extension.Announcement;
import io.fsp.extension.TransferOptions;
import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayRefusedException;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.fsp.server.select.RelayEndpoint;
import io.netty.channel.Channel;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the {@link StripingEngine} of one transfer on its own thread and reports its end as a Netty future
 * on the control channel's loop, which is what the command and the data-transfer machinery wait on. The
 * engine's announcements go to the {@link Announcements} given; the transfer is cancelled when the control
 * channel closes. Once every block is placed the transfer is finished at its relays (FINISH_TRANSFER): each keeps
 * reserved only what it holds, and one that holds none of it lets it go. An evacuation ({@link TransferOptions#evacuation()})
 * is never aborted at the relays: what it placed stays there, retained, for a collector that comes after its client
 * has gone, and when striping stops early (the client left, a read failed) it is finished all the same. A probe
 * ({@link TransferOptions#probe()}, a dry run of an evacuation) is opened and pushed as the evacuation would be, and
 * aborted at the relays however it ends: nothing of it stays there.
 */
public final class Striping {
    private static final Logger log = LoggerFactory.getLogger(Striping.class);
    private final StripeContext stripe;
    private final Channel control;
    private final String session;
    private final Announcements announcements;
    private final StripedTransfer transfer;
    private final Map<Integer, RelayConnection> relays;
    private final List<RelayEndpoint> endpoints;
    private volatile Map<String, Integer> placed = Map.of();
    private volatile int shortOfCopies;
    private final Map<Integer, BlockTarget.Relay> relayTargets = new java.util.concurrent.ConcurrentHashMap<>();
    private final LongConsumer relayBytes;
    private final LongConsumer directBytes;

    /**
     * @param control the client's control channel: its loop completes the future, its closing cancels the transfer
     * @param session names the client's session in the log
     * @param relays the connections the transfer uses, by index into {@code endpoints}
     * @param endpoints the relays asked to take the transfer
     * @param announcements where the blocks' announcements go
     * @param relayBytes told the bytes of each block (and replica) a relay acknowledged
     * @param directBytes told the bytes of each block written to the data connection
     */
    public Striping(StripeContext stripe, Channel control, String session, StripedTransfer transfer,
                    Map<Integer, RelayConnection> relays, List<RelayEndpoint> endpoints, Announcements announcements,
                    LongConsumer relayBytes, LongConsumer directBytes) {
        this.relayBytes = relayBytes;
        this.directBytes = directBytes;
        this.stripe = stripe;
        this.control = control;
        this.session = session;
        this.announcements = announcements;
        this.transfer = transfer;
        this.relays = relays;
        this.endpoints = endpoints;
    }

    /**
     * Sends the transfer's opening lines (FSP, KEY, TOKEN, RELAY, then a DIR and a FILE line for every directory
     * and file) from an engine thread, each once the client reads what went before: a tree of a million files
     * makes a million lines, which the control channel's loop should neither format nor hold at once while it
     * serves other sessions. The future completes on the control channel's loop once the last line is handed
     * over, and fails if the client left first.
     */
    public Future<Void> announceOpening(List<Announcement> lines) {
        Promise<Void> done = control.eventLoop().newPromise();
        stripe.engines().execute(() -> {
            for (Announcement a : lines) {
                if (!announcements.awaitRoom()) {
                    done.tryFailure(new IOException("the client left while the transfer's files were announced"));
                    return;
                }
                announcements.announce(a);
            }
            done.trySuccess(null);
        });
        return done;
    }

    /** Runs the engine; the future completes with the bytes of the transfer once every block is placed. */
    public Future<Long> start(Optional<Channel> direct) {
        Promise<Long> done = control.eventLoop().newPromise();
        List<BlockTarget> targets = new ArrayList<>();
        relays.forEach((i, c) -> {
            BlockTarget.Relay t = new BlockTarget.Relay(i, c, transfer.id(),
                    new PushWindowTuner(transfer.options().blockSize(), stripe.maxPushWindow()), relayBytes);
            relayTargets.put(i, t);
            targets.add(t);
        });
        direct.ifPresent(ch -> targets.add(new BlockTarget.Direct(ch, directBytes)));
        StripingEngine engine = new StripingEngine(transfer, targets, announcements, stripe.relayConfig().requestTimeout(),
                stripe.engines(), stripe.keptDigests());
        control.closeFuture().addListener(f -> engine.cancel());
        long start = System.nanoTime();
        stripe.engines().execute(() -> {
            try {
                placed = new TreeMap<>(engine.run());
                shortOfCopies = engine.shortOfCopies();
                announcements.end(true);
                log.info("{} transfer {}: {} blocks, {} bytes placed in {} ms: {}", session, transfer.id(),
                        transfer.plan().count(), transfer.totalBytes(), (System.nanoTime() - start) / 1_000_000, placed);
                if (transfer.options().probe()) {
                    abortAtRelays(); // a dry run: nobody collects it
                } else {
                    finishAtRelays();
                }
                done.trySuccess(transfer.totalBytes());
                // The client collects from the relays over this session; once it is gone, nobody will.
                if (!relays.isEmpty() && !transfer.options().evacuation()) {
                    control.closeFuture().addListener(f -> abortLater());
                }
            } catch (Exception | Error e) {
                // An Error too (out of memory, a class that no longer loads): the client gets its reply and the
                // transfer's plan and relay space go back, instead of a FRET left unanswered.
                if (e instanceof Error) {
                    log.error("{} transfer {} failed: {}", session, transfer.id(), e.toString(), e);
                } else {
                    log.warn("{} transfer {} failed: {}", session, transfer.id(), e.toString());
                }
                announcements.end(false);
                if (transfer.options().evacuation() && !transfer.options().probe()) {
                    log.info("{} evacuation {} stopped: the blocks placed stay at the relays for their collector", session,
                            transfer.id());
                    finishAtRelays();
                } else {
                    abortAtRelays();
                }
                done.tryFailure(e);
            }
        });
        return done;
    }

    /**
     * Striping broke off (the client went away, or a read failed), or the client's control connection closed
     * after the 226: nobody will collect what is left at the relays, and a rerun is a new transfer with a new
     * key, so the blocks placed are of no use to anyone. Free them at once instead of leaving them in the
     * relays' quotas until they expire. The abort goes on an idle kept connection (or a new one), never on one
     * that is pushing: a relay whose quota this transfer filled reads nothing more from the pushing connection.
     * A kept connection has said HELLO already, so aborts do not count against the relay's limit on connections
     * per address that have not authenticated. Never for an evacuation, which is meant to outlive its client.
     */
    private void abortAtRelays() {
        abortAt(relays.keySet(), "blocks");
    }

    /**
     * Striping is over (every block placed, or an evacuation stopped): tells each relay that nothing more comes, so
     * that it keeps reserved only the blocks it holds (an evacuation's room would otherwise stay taken for its whole
     * retention) and lets the transfer go where it holds none. On the transfer's own connections, behind their last
     * puts; a connection the engine gave up is closed, and its closing finishes the transfer at the relay.
     */
    private void finishAtRelays() {
        List<CompletableFuture<Void>> finishing = new ArrayList<>();
        relays.forEach((i, c) -> {
            if (!gaveUp(i)) {
                finishing.add(c.finishTransfer(transfer.id()).exceptionally(e -> {
                    log.info("{} transfer {}: relay {} did not take FINISH_TRANSFER: {}", session, transfer.id(),
                            endpoints.get(i).hostPort(), e.toString());
                    return null;
                }));
            }
        });
        try {
            CompletableFuture.allOf(finishing.toArray(CompletableFuture[]::new))
                    .get(stripe.relayConfig().requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            log.info("{} transfer {}: not every relay answered FINISH_TRANSFER ({})", session, transfer.id(), e.toString());
        }
    }

    private void abortAt(Collection<Integer> indices, String freed) {
        List<CompletableFuture<Boolean>> aborts = new ArrayList<>();
        for (int i : indices) {
            RelayEndpoint e = endpoints.get(i);
            CompletableFuture<Boolean> held = new CompletableFuture<>();
            aborts.add(stripe.relayConnection(e, c -> c.abortTransfer(transfer.id()).thenApply(v -> true)
                            .exceptionally(Striping::ended).thenAccept(held::complete))
                    .thenAccept(c -> stripe.release(e, c, true)).thenCompose(v -> held));
        }
        try {
            CompletableFuture.allOf(aborts.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
            long holding = aborts.stream().filter(CompletableFuture::join).count();
            if (holding == 0) { // the usual end of a get: the client collected everything, the relays let it go
                log.info("{} transfer {}: over at its {} relays, nothing of it left there", session, transfer.id(),
                        aborts.size());
            } else {
                log.info("{} transfer {}: aborted at {} of its {} relays, its {} there freed", session, transfer.id(),
                        holding, aborts.size(), freed);
            }
        } catch (Exception ex) {
            log.info("{} transfer {}: not every relay took the abort ({}); its blocks there expire", session,
                    transfer.id(), ex.toString());
        }
    }

    /**
     * An abort the relay answered UNKNOWN_TRANSFER: the transfer ended there already (collected whole, or it held
     * none of its blocks), which is what the abort was for; the connection is sound (false: nothing was left to
     * free). Any other failure stands.
     */
    private static Boolean ended(Throwable error) {
        Throwable e = error instanceof java.util.concurrent.CompletionException && error.getCause() != null
                ? error.getCause() : error;
        if (e instanceof RelayRefusedException r && r.code() == RelayErrorCode.UNKNOWN_TRANSFER) {
            return false;
        }
        throw error instanceof RuntimeException re ? re : new java.util.concurrent.CompletionException(error);
    }

    private void abortLater() {
        try {
            stripe.engines().execute(this::abortAtRelays);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.debug("{} transfer {}: the server is stopping; its blocks at the relays expire", session, transfer.id());
        }
    }

    /** Whether the engine gave up relay {@code index} during this transfer (failed, stalled or closed). */
    public boolean gaveUp(int index) {
        BlockTarget.Relay t = relayTargets.get(index);
        return t != null && t.isDead();
    }

    /** Where the blocks went, once striping completed: {@code relay:0}, {@code direct}, … and their counts. */
    public Map<String, Integer> placed() {
        return placed;
    }

    /**
     * {@code relay:0=12 relay:1=9 …}: where the blocks went; then, if some blocks on relays have fewer copies than
     * asked, {@code ; 3 blocks with fewer than 2 copies}.
     */
    public String placedSummary() {
        StringBuilder sb = new StringBuilder().append(transfer.plan().count()).append(" blocks placed");
        placed.forEach((k, v) -> sb.append(' ').append(k).append('=').append(v));
        if (shortOfCopies > 0) {
            sb.append("; ").append(shortOfCopies).append(shortOfCopies == 1 ? " block" : " blocks")
                    .append(" with fewer than ").append(transfer.options().replicas()).append(" copies");
        }
        return sb.toString();
    }

    /** Blocks placed on relays with fewer copies than the transfer's replicas, once striping completed. */
    public int shortOfCopies() {
        return shortOfCopies;
    }
}

package io.fsp.client.collect;

import io.fsp.client.collect.EvacuationInventory.RelayEntry;
import io.fsp.relaylink.RelayConnection;
import io.fsp.relaylink.RelayConnectionConfig;
import io.fsp.relaylink.RelayRefusedException;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.tls.SslContexts;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TransferId;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;

/**
 * Asks an evacuation's relays about its blocks without collecting them: each relay as {@code fsp collect} reaches it
 * (TLS pinned to the fingerprint recorded, AUTHORIZE with the recorded token), all relays at once. {@link #holds}
 * frees nothing; {@link #release} frees every block placed there.
 */
public final class EvacuationRelays implements AutoCloseable {
    /**
     * What one relay answered: the blocks it holds (for {@link #holds}) or freed (for {@link #release}), or why it did
     * not answer ({@code error} not null, {@code held} empty). A relay that no longer knows the transfer answered:
     * it holds nothing of it.
     */
    public record Answer(RelayEntry relay, Set<Long> held, long freed, String error) {
        public boolean answered() {
            return error == null;
        }
    }

    private final Duration timeout;
    private final EventLoopGroup loops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());

    /** @param timeout how long a relay may take to connect, and then to answer each request */
    public EvacuationRelays(Duration timeout) {
        this.timeout = timeout;
    }

    /** Which of the blocks placed on each relay it still holds, by relay index. */
    public Map<Integer, Answer> holds(EvacuationInventory inventory) {
        return ask(inventory, null, (c, r) -> c.holds(inventory.transferId(), r.seqs())
                .thenApply(held -> new Answer(r, held, 0, null)));
    }

    /** Frees every block placed on each relay (CONFIRM), by relay index: how many each freed. */
    public Map<Integer, Answer> release(EvacuationInventory inventory) {
        return release(inventory, null);
    }

    /** As {@link #release(EvacuationInventory)}, only on the relays of these indices (all when null). */
    public Map<Integer, Answer> release(EvacuationInventory inventory, Set<Integer> only) {
        return ask(inventory, only, (c, r) -> c.confirm(inventory.transferId(), r.seqs())
                .thenApply(freed -> new Answer(r, Set.of(), freed, null)));
    }

    private Map<Integer, Answer> ask(EvacuationInventory inventory, Set<Integer> only,
                                     BiFunction<RelayConnection, RelayEntry, CompletableFuture<Answer>> request) {
        CapabilityToken token = inventory.token();
        TransferId transfer = inventory.transferId();
        Map<Integer, CompletableFuture<Answer>> asked = new LinkedHashMap<>();
        RelayConnectionConfig config = RelayConnectionConfig.DEFAULT.withConnectTimeout(timeout).withRequestTimeout(timeout)
                .withClearLinks(false); // no block goes over it: no second connection
        for (RelayEntry r : inventory.relays()) {
            if (r.seqs().isEmpty() || only != null && !only.contains(r.index())) {
                continue; // took the transfer but was given no block, or not asked this time
            }
            CompletableFuture<Answer> answer;
            try {
                CompletableFuture<RelayConnection> connection = RelayConnection.connect(
                        new InetSocketAddress(r.host(), r.port()),
                        SslContexts.client(PinnedTrustManager.of(Set.of(r.fingerprint())), Optional.empty()),
                        loops, config, token);
                answer = connection.thenCompose(c -> request.apply(c, r).whenComplete((a, e) -> c.close()));
            } catch (Exception e) {
                answer = CompletableFuture.failedFuture(e);
            }
            asked.put(r.index(), answer.exceptionally(e -> gone(r, e, transfer)));
        }
        Map<Integer, Answer> answers = new LinkedHashMap<>();
        long deadline = System.nanoTime() + timeout.toNanos() * 3 + TimeUnit.SECONDS.toNanos(1);
        asked.forEach((i, f) -> {
            try {
                answers.put(i, f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (TimeoutException e) {
                answers.put(i, new Answer(relayOf(inventory, i), Set.of(), 0,
                        "no answer within " + timeout.toMillis() * 3 + " ms"));
            } catch (ExecutionException e) {
                answers.put(i, gone(relayOf(inventory, i), e.getCause(), transfer));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                answers.put(i, new Answer(relayOf(inventory, i), Set.of(), 0, "interrupted"));
            }
        });
        return answers;
    }

    private static RelayEntry relayOf(EvacuationInventory inventory, int index) {
        return inventory.relays().stream().filter(r -> r.index() == index).findFirst().orElseThrow();
    }

    /** A relay that no longer knows the transfer holds none of it (an answer); any other failure is no answer. */
    private static Answer gone(RelayEntry r, Throwable e, TransferId transfer) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof RelayRefusedException refused && refused.code() == RelayErrorCode.UNKNOWN_TRANSFER) {
            return new Answer(r, Set.of(), 0, null);
        }
        String why = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        return new Answer(r, Set.of(), 0, why.length() > 200 ? why.substring(0, 200) : why);
    }

    @Override
    public void close() {
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}

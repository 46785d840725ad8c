package io.fsp.relay.net;

import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.channel.FileRegion;
import io.netty.util.ReferenceCounted;
import io.netty.util.concurrent.EventExecutor;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The caps that Netty's traffic shaping cannot apply here ({@link RateLimits}): the per-transfer cap in both
 * directions, and the total cap on what the relay receives. A transfer is fetched over several connections (and a
 * connection may serve several transfers), so a per-connection shaper would cap the wrong thing; and Netty's shapers
 * pause reading only on channels that read by themselves, while a relay connection reads a request only when it
 * is ready for one. So each transfer, and all receiving together, has a clock of when its next byte may move:
 * a GET's block waits until its transfer's clock allows it before it is written, and a PUT's OK waits until the
 * bytes it brought are paid for (so the server's push window, and the relay's reading, follow the cap). Clocks of
 * transfers silent for a minute are dropped.
 */
final class Pacing {
    private static final long FORGET_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final RateLimits limits;
    private final Map<TransferId, Clock> sending = new ConcurrentHashMap<>();
    private final Map<TransferId, Clock> receiving = new ConcurrentHashMap<>();
    private final Clock allReceiving = new Clock();
    private volatile long lastSweep = System.nanoTime();

    Pacing(RateLimits limits) {
        this.limits = limits;
    }

    /** {@code block} (its bytes, or a region of its file), completed once its transfer's cap lets it be sent. */
    CompletableFuture<Optional<ReferenceCounted>> beforeSending(TransferId transfer,
                                                                CompletableFuture<Optional<ReferenceCounted>> block,
                                                                EventExecutor executor) {
        if (limits.perTransfer() == 0) {
            return block;
        }
        return block.thenCompose(b -> {
            if (b.isEmpty()) {
                return block;
            }
            long now = System.nanoTime();
            long size = b.get() instanceof ByteBuf bytes ? bytes.readableBytes() : ((FileRegion) b.get()).count();
            long start = clock(sending, transfer, now).take(size, limits.perTransfer(), now);
            return delay(start - now, b, executor);
        });
    }

    /** Completes once {@code bytes} received for {@code transfer} are within the caps. */
    CompletableFuture<Void> afterReceiving(TransferId transfer, long bytes, EventExecutor executor) {
        long now = System.nanoTime();
        long until = now;
        if (limits.total() > 0) {
            until = allReceiving.take(bytes, limits.total(), now) + nanos(bytes, limits.total());
        }
        if (limits.perTransfer() > 0) {
            until = Math.max(until, clock(receiving, transfer, now).take(bytes, limits.perTransfer(), now)
                    + nanos(bytes, limits.perTransfer()));
        }
        return delay(until - now, null, executor);
    }

    private static <T> CompletableFuture<T> delay(long nanos, T value, EventExecutor executor) {
        if (nanos <= 0) {
            return CompletableFuture.completedFuture(value);
        }
        CompletableFuture<T> later = new CompletableFuture<>();
        executor.schedule(() -> later.complete(value), nanos, TimeUnit.NANOSECONDS);
        return later;
    }

    private Clock clock(Map<TransferId, Clock> clocks, TransferId transfer, long now) {
        if (now - lastSweep > FORGET_NANOS) {
            lastSweep = now;
            clocks.values().removeIf(c -> c.idleSince(now - FORGET_NANOS));
        }
        return clocks.computeIfAbsent(transfer, t -> new Clock());
    }

    private static long nanos(long bytes, long perSecond) {
        return (long) (bytes * 1e9 / perSecond);
    }

    /** When the next byte may move: every byte moved pushes it on by 1/rate. */
    private static final class Clock {
        private long next = Long.MIN_VALUE;

        /** Takes {@code bytes}: returns when they may start moving (now, or later if the clock is ahead). */
        synchronized long take(long bytes, long perSecond, long now) {
            long start = next == Long.MIN_VALUE || next - now < 0 ? now : next;
            next = start + nanos(bytes, perSecond);
            return start;
        }

        synchronized boolean idleSince(long when) {
            return next == Long.MIN_VALUE || next - when < 0;
        }
    }
}

package io.fsp.server.stripe;

import io.fsp.relaylink.RelayConnection;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

/** Where the engine can place a block: a relay, or the client's own data connection ("direct"). */
abstract class BlockTarget {
    private final String label;
    private volatile boolean dead;
    private volatile boolean full;

    BlockTarget(String label) {
        this.label = label;
    }

    /** How the block's place is announced: {@code relay:INDEX} or {@code direct}. */
    String label() {
        return label;
    }

    /** Whether the target failed or stalled: the engine gave it up, and its connection is not kept. */
    boolean isDead() {
        return dead;
    }

    void markDead() {
        dead = true;
    }

    /** Whether the engine may give this target more blocks of the transfer: it neither failed nor is full. */
    boolean takesBlocks() {
        return !dead && !full;
    }

    /**
     * A relay refused a block for want of room (NO_SPACE: a retained transfer cannot stream through its
     * reservation): it takes no more blocks of this transfer, but its connection is sound and kept.
     */
    void markFull() {
        full = true;
    }

    boolean isFull() {
        return full;
    }

    /** Completes when the target can take another block; fails when it never will. */
    abstract CompletableFuture<Void> whenWritable();

    /** Sends {@code block} (ownership passes); completes once it is stored (relay) or written (direct). */
    abstract CompletableFuture<Void> send(long seq, ByteBuf block);

    /** Bytes sent but not yet confirmed: the smaller, the sooner this target can take more. */
    abstract long load();

    static final class Relay extends BlockTarget {
        private final int index;
        private final RelayConnection connection;
        private final TransferId transfer;
        private final PushWindowTuner window;
        private final LongConsumer stored;

        /**
         * @param window fits the connection's push window to the rate at which the relay stores blocks
         * @param stored told the bytes of each block once the relay acknowledged its store (OK)
         */
        Relay(int index, RelayConnection connection, TransferId transfer, PushWindowTuner window, LongConsumer stored) {
            super("relay:" + index);
            this.index = index;
            this.connection = connection;
            this.transfer = transfer;
            this.window = window;
            this.stored = stored;
        }

        /** The relay's index in the transfer's RELAY lines. */
        int index() {
            return index;
        }

        RelayConnection connection() {
            return connection;
        }

        @Override
        CompletableFuture<Void> whenWritable() {
            return connection.whenWritable();
        }

        @Override
        CompletableFuture<Void> send(long seq, ByteBuf block) {
            long bytes = block.readableBytes();
            window.started(System.nanoTime());
            return connection.putBlock(transfer, seq, block).whenComplete((ok, error) -> {
                if (error == null) {
                    stored.accept(bytes);
                    window.acknowledged(bytes, System.nanoTime(), connection.minRoundTripNanos())
                            .ifPresent(connection::pushWindowBytes);
                }
            });
        }

        @Override
        long load() {
            return connection.unacknowledgedBytes();
        }
    }

    /** The data connection of FRET: blocks go straight to the client; Netty's writability is the credit. */
    static final class Direct extends BlockTarget {
        private final Channel channel;
        private final List<CompletableFuture<Void>> waiters = new ArrayList<>();
        private final LongConsumer written;

        /** @param written told the bytes of each block once it is written to the socket */
        Direct(Channel channel, LongConsumer written) {
            super("direct");
            this.channel = channel;
            this.written = written;
            channel.pipeline().addLast("fsp-writability", new ChannelInboundHandlerAdapter() {
                @Override
                public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                    wake();
                    ctx.fireChannelWritabilityChanged();
                }

                @Override
                public void channelInactive(ChannelHandlerContext ctx) {
                    wake();
                    ctx.fireChannelInactive();
                }
            });
        }

        private void wake() {
            List<CompletableFuture<Void>> ready;
            synchronized (waiters) {
                ready = new ArrayList<>(waiters);
                waiters.clear();
            }
            for (CompletableFuture<Void> w : ready) {
                if (channel.isActive()) {
                    w.complete(null);
                } else {
                    w.completeExceptionally(new java.io.IOException("direct data connection closed"));
                }
            }
        }

        @Override
        CompletableFuture<Void> whenWritable() {
            CompletableFuture<Void> f = new CompletableFuture<>();
            if (!channel.isActive()) {
                f.completeExceptionally(new java.io.IOException("direct data connection closed"));
                return f;
            }
            synchronized (waiters) {
                waiters.add(f);
            }
            if (channel.isWritable() || !channel.isActive()) {
                wake();
            }
            return f;
        }

        @Override
        CompletableFuture<Void> send(long seq, ByteBuf block) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            long bytes = block.readableBytes();
            channel.writeAndFlush(block).addListener(w -> {
                if (w.isSuccess()) {
                    written.accept(bytes);
                    f.complete(null);
                } else {
                    f.completeExceptionally(w.cause());
                }
            });
            return f;
        }

        @Override
        long load() {
            return channel.isWritable() ? 0 : Long.MAX_VALUE / 2;
        }
    }
}

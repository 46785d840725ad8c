package io.fsp.client.collect;

import io.fsp.block.BlockLimits;
import io.fsp.client.control.FspConversation;
import io.fsp.extension.FgetRequest;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.net.Socket;
import java.nio.channels.Channels;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Fetches the blocks no relay or direct connection delivered from the server itself (FGET on a data connection of
 * the control channel), in rounds: a block that fails again waits for the next round, until the rounds run out.
 */
final class OriginFetcher {
    static final int ROUNDS = 3;

    /** Where a fetched block goes, and how to wait until every block handed on is settled. */
    interface Receiver {
        /** The block's wire bytes from the origin (the receiver releases them). */
        void fetched(BlockLifecycle block, ByteBuf wire);

        /** The origin did not send the block. */
        void missing(BlockLifecycle block);

        void awaitIdle() throws InterruptedException;
    }

    private final Queue<BlockLifecycle> waiting = new ConcurrentLinkedQueue<>();
    private final BlockLimits limits;
    private final Duration connectTimeout;
    private final Duration readTimeout;

    OriginFetcher(BlockLimits limits, Duration connectTimeout, Duration readTimeout) {
        this.limits = limits;
        this.connectTimeout = connectTimeout;
        this.readTimeout = readTimeout;
    }

    /** The block's lifecycle settled on the origin: the next round fetches it. */
    void add(BlockLifecycle block) {
        waiting.add(block);
    }

    /** Runs rounds until no block waits, the rounds run out, or {@code stop} says so (disk full). */
    void run(FspConversation fsp, TransferId transferId, Receiver receiver, java.util.function.BooleanSupplier stop)
            throws IOException, InterruptedException {
        for (int round = 0; round < ROUNDS && !waiting.isEmpty() && !stop.getAsBoolean(); round++) {
            Map<Long, BlockLifecycle> wanted = new LinkedHashMap<>(); // in the order they failed
            for (BlockLifecycle b; (b = waiting.poll()) != null; ) {
                if (b.originFetchStarted()) { // once per block, and not when done meanwhile
                    wanted.put(b.seq(), b);
                }
            }
            for (FgetRequest request : FgetRequest.of(transferId, List.copyOf(wanted.keySet()))) {
                fget(fsp, request, wanted, receiver);
            }
            receiver.awaitIdle();
        }
    }

    private void fget(FspConversation fsp, FgetRequest request, Map<Long, BlockLifecycle> wanted, Receiver receiver)
            throws IOException, InterruptedException {
        Map<Long, BlockLifecycle> bySeq = new TreeMap<>();
        request.blocks().forEach(seq -> bySeq.put(seq, wanted.get(seq)));
        try (Socket data = fsp.fget(request, connectTimeout)) {
            // through the stream, whose reads keep the socket's timeout
            BlockStreamReader reader = new BlockStreamReader(Channels.newChannel(data.getInputStream()), limits);
            data.setSoTimeout((int) readTimeout.toMillis());
            for (int n = 0; n < request.blocks().size(); n++) {
                ByteBuf wire = reader.next();
                if (wire == null) {
                    break;
                }
                BlockLifecycle b = bySeq.remove(reader.sequence());
                if (b == null) {
                    wire.release();
                    continue;
                }
                receiver.fetched(b, wire);
            }
            bySeq.values().forEach(receiver::missing);
            bySeq.clear();
        }
        fsp.fetched();
    }
}

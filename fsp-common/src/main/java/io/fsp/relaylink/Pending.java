package io.fsp.relaylink;

import io.fsp.relaylink.wire.RelayMessage;
import io.fsp.token.TransferId;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.CompletableFuture;

/** A request waiting for its answer. */
final class Pending {
    final Class<?> type;
    final CompletableFuture<?> future;
    final long putBytes;
    /** The request, or null for a pushed block: its buffer belongs to the write. */
    final RelayMessage request;
    /** A pushed block's transfer and number, for messages. */
    final TransferId pushedTransfer;
    final long pushedSeq;
    final long sentNanos = System.nanoTime();
    ScheduledFuture<?> timeout;

    Pending(Class<?> type, CompletableFuture<?> future, long putBytes, RelayMessage request) {
        this.type = type;
        this.future = future;
        this.putBytes = putBytes;
        RelayMessage.PutBlock put = request instanceof RelayMessage.PutBlock p ? p : null;
        this.request = put == null ? request : null;
        this.pushedTransfer = put == null ? null : put.transferId();
        this.pushedSeq = put == null ? -1 : put.seq();
    }

    /**
     * The request as messages name it, made only for a message: formatting one per block would cost the event
     * loop a string per block that nobody reads.
     */
    String what() {
        return request != null ? describe(request) : "PutBlock[transfer=" + pushedTransfer + ", seq=" + pushedSeq + "]";
    }

    private static String describe(RelayMessage request) {
        String s = request.toString();
        return s.length() > 200 ? s.substring(0, 200) : s;
    }
}

package io.fsp.relaylink;

import io.fsp.relaylink.wire.RelayMessage;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The server's role on a relay link: it pushes blocks, at most {@code pushWindowBytes} unacknowledged at a time (the
 * rest wait here), and tells a striping engine when the relay can take more (a full relay delays its
 * acknowledgements, so a slow or full relay gets fewer blocks). Its other requests need no state of the role.
 */
final class Pushing implements RelayLink.Listener {
    private final RelayLink link;

    // Confined to the link's event loop.
    private final ArrayDeque<QueuedPut> queuedPuts = new ArrayDeque<>();
    private final List<CompletableFuture<Void>> writableWaiters = new ArrayList<>();
    private volatile long unacknowledgedBytes; // written on the event loop only
    private volatile long pushWindowBytes; // written on the event loop only

    Pushing(RelayLink link) {
        this.link = link;
        this.pushWindowBytes = link.config().pushWindowBytes();
    }

    CompletableFuture<Void> putBlock(TransferId transferId, long seq, ByteBuf block) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        link.eventLoop().execute(() -> {
            if (!link.usable()) {
                ReferenceCountUtil.release(block);
                f.completeExceptionally(link.closedException());
                return;
            }
            queuedPuts.add(new QueuedPut(transferId, seq, block, f));
            drainPuts();
        });
        return f;
    }

    CompletableFuture<Void> whenWritable() {
        CompletableFuture<Void> f = new CompletableFuture<>();
        link.eventLoop().execute(() -> {
            if (!link.usable()) {
                f.completeExceptionally(link.closedException());
            } else if (hasPushRoom()) {
                f.complete(null);
            } else {
                writableWaiters.add(f);
                f.whenComplete((x, e) -> {
                    if (f.isCancelled()) {
                        link.eventLoop().execute(() -> writableWaiters.remove(f));
                    }
                });
            }
        });
        return f;
    }

    long unacknowledgedBytes() {
        return unacknowledgedBytes;
    }

    void pushWindowBytes(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException("pushWindowBytes: " + bytes + " (expected: >= 1)");
        }
        link.eventLoop().execute(() -> {
            pushWindowBytes = bytes;
            drainPuts();
        });
    }

    private boolean hasPushRoom() {
        return queuedPuts.isEmpty() && unacknowledgedBytes < pushWindowBytes;
    }

    private void drainPuts() {
        while (!queuedPuts.isEmpty()) {
            QueuedPut q = queuedPuts.peek();
            long size = q.block.readableBytes();
            if (unacknowledgedBytes > 0 && unacknowledgedBytes + size > pushWindowBytes) {
                return; // the relay's acknowledgements make room
            }
            queuedPuts.poll();
            unacknowledgedBytes += size;
            RelayMessage.PutBlock put = new RelayMessage.PutBlock(link.nextId(), q.transferId, q.seq, q.block);
            link.send(put, new Pending(Void.class, q.future, size, put), link.config().putTimeout());
        }
        if (unacknowledgedBytes < pushWindowBytes && !writableWaiters.isEmpty()) {
            List<CompletableFuture<Void>> waiters = new ArrayList<>(writableWaiters);
            writableWaiters.clear();
            waiters.forEach(w -> w.complete(null));
        }
    }

    @Override
    public void settled(long putBytes) {
        if (putBytes > 0) {
            unacknowledgedBytes -= putBytes;
            drainPuts();
        }
    }

    @Override
    public void closed(RelayException e) {
        for (QueuedPut q; (q = queuedPuts.poll()) != null; ) {
            ReferenceCountUtil.release(q.block);
            q.future.completeExceptionally(e);
        }
        writableWaiters.forEach(w -> w.completeExceptionally(e));
        writableWaiters.clear();
        unacknowledgedBytes = 0;
    }

    private record QueuedPut(TransferId transferId, long seq, ByteBuf block, CompletableFuture<Void> future) {
    }
}

package io.fsp.relay.net;

import io.fsp.relay.metrics.RelayMetrics;
import io.fsp.relay.store.BlockStore;
import io.fsp.relaylink.wire.RelayFrame;
import io.fsp.relaylink.wire.RelayMessage;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;

/** A trusted server's PUT_BLOCK: checked, stored, paced, then answered by OK (the server's credit). */
final class PutRequests {
    private final RelaySessionHandler session;
    private final BlockStore store;
    private final BlockCheck blockCheck;
    private final RelayMetrics metrics;
    private final Pacing pacing;

    PutRequests(RelaySessionHandler session, BlockStore store, BlockCheck blockCheck, RelayMetrics metrics,
                Pacing pacing) {
        this.session = session;
        this.store = store;
        this.blockCheck = blockCheck;
        this.metrics = metrics;
        this.pacing = pacing;
    }

    void register() {
        session.on(RelayFrame.PUT_BLOCK, RelayMessage.PutBlock.class, this::put);
    }

    private void put(RelayMessage.PutBlock p) {
        if (!session.requireServer(p)) {
            return;
        }
        if (!session.ownsTransfer(p.id(), p.transferId())) {
            p.release();
            return;
        }
        TransferId id = p.transferId();
        long seq = p.seq();
        int msgId = p.id();
        ByteBuf bytes = p.content();
        int size = bytes.readableBytes();
        long arrived = System.nanoTime();
        // Checked, then handed to the store; until it answers, this connection reads nothing more.
        CompletableFuture<Void> stored = blockCheck.verify(id, seq, bytes).handle((ok, error) -> {
            if (error != null) {
                bytes.release();
                return CompletableFuture.<Void>failedFuture(error);
            }
            return store.put(id, seq, bytes);
        }).thenCompose(f -> f).thenCompose(v -> {
            metrics.stored(size, System.nanoTime() - arrived);
            return pacing.afterReceiving(id, size, session.executor());
        });
        session.await(stored, (ok, error) -> {
            if (error == null) {
                session.reply(new RelayMessage.Ok(msgId));
            } else {
                session.refuse(msgId, error);
            }
        });
    }
}

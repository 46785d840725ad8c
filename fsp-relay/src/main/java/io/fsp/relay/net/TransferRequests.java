package io.fsp.relay.net;

import io.fsp.config.Durations;
import io.fsp.relay.metrics.RelayMetrics;
import io.fsp.relay.store.BlockStore;
import io.fsp.relay.store.StoreException;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.fsp.relaylink.wire.RelayFrame;
import io.fsp.relaylink.wire.RelayMessage;
import io.fsp.token.TransferId;
import java.time.Clock;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A trusted server's requests that open and close its transfers: OPEN_TRANSFER, ABORT_TRANSFER, FINISH_TRANSFER.
 * The transfers a connection opened are finished when it closes.
 */
final class TransferRequests {
    private static final Logger log = LoggerFactory.getLogger(RelaySessionHandler.class); // the sessions' log name

    private final RelaySessionHandler session;
    private final BlockStore store;
    private final Clock clock;
    private final RelayMetrics metrics;
    /** Transfers this (server) connection opened and has not finished or aborted: its closing finishes them. */
    private final Set<TransferId> pushing = new HashSet<>();

    TransferRequests(RelaySessionHandler session, BlockStore store, Clock clock, RelayMetrics metrics) {
        this.session = session;
        this.store = store;
        this.clock = clock;
        this.metrics = metrics;
    }

    void register() {
        session.on(RelayFrame.OPEN_TRANSFER, RelayMessage.OpenTransfer.class, this::open);
        session.on(RelayFrame.ABORT_TRANSFER, RelayMessage.AbortTransfer.class, this::abort);
        session.on(RelayFrame.FINISH_TRANSFER, RelayMessage.FinishTransfer.class, this::finish);
    }

    /**
     * A server pushes a transfer over the connection that opened it: with that connection gone, nothing more comes,
     * and the transfer keeps only what it holds (a server that crashed mid-evacuation included).
     */
    void closed() {
        for (TransferId id : pushing) {
            try {
                if (store.finish(id) == BlockStore.FinishResult.ENDED) {
                    log.info("{} transfer {} ended with the connection that opened it: it held no block", session, id);
                }
            } catch (StoreException e) {
                // ended meanwhile
            }
        }
        pushing.clear();
    }

    private void open(RelayMessage.OpenTransfer o) {
        if (!session.requireServer(o)) {
            return;
        }
        if (!o.expiresAt().isAfter(clock.instant())) {
            session.refuse(o.id(), RelayErrorCode.TOKEN_EXPIRED, "expiresAt: " + o.expiresAt() + " (expected: in the future)");
            return;
        }
        session.await(store.open(o.transferId(), o.tokenKey(), o.expiresAt(), o.space(), session.server(), o.retained()),
                (result, error) -> opened(o, result, error));
    }

    private void opened(RelayMessage.OpenTransfer o, BlockStore.OpenResult result, Throwable error) {
        if (error != null) {
            session.refuse(o.id(), error);
            return;
        }
        switch (result) {
            case OPENED -> {
                log.info("{} transfer {} opened{}, expires {}, space {} bytes, {} reserved", session, o.transferId(),
                        o.retained() ? " retained" : "", o.expiresAt(), o.space(),
                        store.status(o.transferId()).map(BlockStore.TransferStatus::reservation).orElse(0L));
                metrics.opened();
                pushing.add(o.transferId());
                session.reply(new RelayMessage.Ok(o.id()));
            }
            case ALREADY_OPEN -> session.reply(new RelayMessage.Ok(o.id()));
            case KEY_MISMATCH -> session.refuse(o.id(), RelayErrorCode.TRANSFER_EXISTS, "transfer " + o.transferId()
                    + " is already open with another key, for another server or with another retention");
            case NO_SPACE -> {
                long reservation = Math.min(o.space(), store.config().transferSpaceBytes());
                String limit = store.shortfall(session.server(), o.retained(), o.space())
                        .orElse("the relay's space is taken");
                log.info("{} transfer {} refused: no room to reserve {} bytes; {}", session, o.transferId(), reservation,
                        limit);
                session.refuse(o.id(), RelayErrorCode.NO_SPACE, o.space() < 1
                        ? "space: " + o.space() + " (expected: >= 1, the block bytes the transfer will push here)"
                        : "no room to reserve " + BlockStore.size(reservation) + " for transfer " + o.transferId()
                                + ": " + limit + "; try another relay");
            }
            case RETENTION_TOO_LONG -> session.refuse(o.id(), RelayErrorCode.RETENTION_TOO_LONG, "expiresAt: "
                    + o.expiresAt() + " (expected: by " + clock.instant().plus(store.config().maxRetain())
                    + "): this relay retains transfers for at most " + Durations.format(store.config().maxRetain())
                    + " (--max-retain)");
        }
    }

    private void abort(RelayMessage.AbortTransfer a) {
        if (!session.requireServer(a) || !session.ownsTransfer(a.id(), a.transferId())) {
            return;
        }
        pushing.remove(a.transferId());
        if (store.abort(a.transferId())) {
            log.info("{} transfer {} aborted by the server", session, a.transferId());
            metrics.aborted();
            session.reply(new RelayMessage.Ok(a.id()));
        } else {
            session.refuseNotOpen(a.id(), a.transferId());
        }
    }

    private void finish(RelayMessage.FinishTransfer f) {
        if (!session.requireServer(f) || !session.ownsTransfer(f.id(), f.transferId())) {
            return;
        }
        pushing.remove(f.transferId());
        try {
            BlockStore.FinishResult result = store.finish(f.transferId());
            log.info("{} transfer {} finished by the server: {}", session, f.transferId(),
                    result == BlockStore.FinishResult.ENDED ? "it held no block, ended"
                            : store.status(f.transferId()).map(t -> t.reservation() + " bytes reserved, what it holds")
                                    .orElse("ended"));
            session.reply(new RelayMessage.Ok(f.id()));
        } catch (StoreException e) {
            session.refuse(f.id(), e);
        }
    }
}

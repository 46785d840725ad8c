package io.fsp.relay.net;

import io.fsp.relay.metrics.RelayMetrics;
import io.fsp.relay.store.BlockStore;
import io.fsp.relay.store.StoreException;
import io.fsp.relaylink.wire.RelayErrorCode;
import io.fsp.relaylink.wire.RelayFrame;
import io.fsp.relaylink.wire.RelayMessage;
import io.fsp.relaylink.wire.RelayRole;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TokenException;
import io.fsp.token.TokenKey;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.channel.FileRegion;
import io.netty.util.ReferenceCounted;
import java.net.InetAddress;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a peer with a capability token asks: AUTHORIZE, GET_BLOCK, CONFIRM, HOLDS and STATUS (the last also from the
 * server that opened the transfer). Every block asked about must be within a token shown on this connection.
 */
final class FetchRequests {
    private static final Logger log = LoggerFactory.getLogger(RelaySessionHandler.class); // the sessions' log name
    /** Distinct transfers one connection may hold tokens for. */
    static final int MAX_TOKENS_PER_CONNECTION = 64;

    private final RelaySessionHandler session;
    private final BlockStore store;
    private final Clock clock;
    private final ReadBudget readBudget;
    private final ClientAdmission clients;
    private final RelayMetrics metrics;
    private final Pacing pacing;
    /** Counted by {@link #clients} (a client whose token was accepted), for the transfers of the session's tokens. */
    private boolean admitted;

    FetchRequests(RelaySessionHandler session, BlockStore store, Clock clock, ReadBudget readBudget,
                  ClientAdmission clients, RelayMetrics metrics, Pacing pacing) {
        this.session = session;
        this.store = store;
        this.clock = clock;
        this.readBudget = readBudget;
        this.clients = clients;
        this.metrics = metrics;
        this.pacing = pacing;
    }

    void register() {
        session.on(RelayFrame.AUTHORIZE, RelayMessage.Authorize.class, this::authorize);
        session.on(RelayFrame.GET_BLOCK, RelayMessage.GetBlock.class, this::get);
        session.on(RelayFrame.CONFIRM, RelayMessage.Confirm.class, this::confirm);
        session.on(RelayFrame.HOLDS, RelayMessage.Holds.class, this::holds);
        session.on(RelayFrame.STATUS, RelayMessage.StatusRequest.class, this::status);
    }

    /** The connection closed: its tokens no longer count against the client's address. */
    void closed(InetAddress peer) {
        if (admitted) {
            admitted = false;
            clients.release(peer, session.tokens().keySet());
        }
    }

    private void authorize(RelayMessage.Authorize a) {
        CapabilityToken token;
        try {
            token = CapabilityToken.decode(a.token());
        } catch (TokenException e) {
            session.refuse(a.id(), RelayErrorCode.TOKEN_MALFORMED, e.getMessage());
            return;
        }
        Optional<TokenKey> key = store.tokenKey(token.transferId());
        if (key.isEmpty()) {
            session.refuseNotOpen(a.id(), token.transferId());
            return;
        }
        try {
            token.verify(key.get(), token.transferId(), clock.instant());
        } catch (TokenException e) {
            log.debug("{} token for transfer {} refused: {}", session, token.transferId(), e.getMessage());
            session.refuse(a.id(), tokenCode(e.reason()), e.getMessage());
            return;
        }
        Map<TransferId, CapabilityToken> tokens = session.tokens();
        if (!tokens.containsKey(token.transferId()) && tokens.size() >= MAX_TOKENS_PER_CONNECTION) {
            session.refuse(a.id(), RelayErrorCode.TOO_MANY_REQUESTS,
                    "tokens: " + tokens.size() + " transfers on one connection (expected: <= "
                            + MAX_TOKENS_PER_CONNECTION + ")");
            return;
        }
        if (session.role() != RelayRole.SERVER && !tokens.containsKey(token.transferId())) {
            ClientAdmission.Refusal refusal = clients.admit(session.peer(), admitted, token.transferId());
            if (refusal != null) {
                metrics.refused(refusal.limit());
                session.fail(new RelayMessage.Error(a.id(), RelayErrorCode.TOO_MANY_CONNECTIONS, refusal.why()));
                return;
            }
            admitted = true;
        }
        tokens.put(token.transferId(), token);
        session.authenticated();
        session.reply(new RelayMessage.Ok(a.id()));
    }

    /** Checks that a token presented on this connection allows {@code what} on this block; refuses if not. */
    private boolean allowed(int msgId, TransferId transfer, long seq, boolean confirm) {
        CapabilityToken token = session.tokens().get(transfer);
        if (token == null) {
            session.refuse(msgId, RelayErrorCode.TOKEN_FOREIGN, "no token for transfer " + transfer
                    + " on this connection (expected: AUTHORIZE first)");
            return false;
        }
        if (!clock.instant().isBefore(token.expiresAt())) {
            session.refuse(msgId, RelayErrorCode.TOKEN_EXPIRED, "token expired at " + token.expiresAt());
            return false;
        }
        if (confirm ? !token.scope().confirm() : !token.scope().read()) {
            session.refuse(msgId, RelayErrorCode.TOKEN_FOREIGN, "token does not allow " + (confirm ? "CONFIRM" : "GET"));
            return false;
        }
        if (seq >= 0 && !token.scope().covers(seq)) {
            session.refuse(msgId, RelayErrorCode.TOKEN_FOREIGN, "block " + seq + " is outside the token's range "
                    + token.scope().firstSeq() + ".." + token.scope().lastSeq());
            return false;
        }
        return true;
    }

    private void get(RelayMessage.GetBlock g) {
        if (!allowed(g.id(), g.transferId(), g.seq(), false)) {
            return;
        }
        long seq = g.seq();
        long arrived = System.nanoTime();
        // On a clear link the kernel sends a spilled block from its file; over TLS it is read into fresh memory,
        // taken from the shared budget until it is written.
        boolean fromFile = session.clearLink();
        long budget = fromFile ? 0 : store.held(g.transferId(), seq).filter(BlockStore.HeldBlock::onDisk)
                .map(BlockStore.HeldBlock::size).orElse(0);
        CompletableFuture<Optional<ReferenceCounted>> read = pacing.beforeSending(g.transferId(),
                readBudget.acquire(budget).thenCompose(granted -> fromFile ? store.getForSending(g.transferId(), seq)
                        : store.get(g.transferId(), seq).thenApply(o -> o.<ReferenceCounted>map(b -> b))),
                session.executor());
        Runnable giveBack = () -> readBudget.release(budget);
        session.await(read, (block, error) -> {
            if (error != null || block.isEmpty()) {
                giveBack.run();
            }
            if (error != null) {
                session.refuse(g.id(), error);
            } else if (block.isEmpty()) {
                session.reply(new RelayMessage.NotFound(g.id(), g.transferId(), seq));
            } else {
                RelayMessage served = block.get() instanceof ByteBuf bytes
                        ? new RelayMessage.Block(g.id(), g.transferId(), seq, bytes)
                        : new RelayMessage.BlockRegion(g, (FileRegion) block.get());
                long size = served instanceof RelayMessage.Block b ? b.content().readableBytes()
                        : ((RelayMessage.BlockRegion) served).region().count();
                session.send(served, ok -> {
                    giveBack.run();
                    if (ok) {
                        metrics.served(size, System.nanoTime() - arrived);
                    }
                });
            }
        }, giveBack);
    }

    private void confirm(RelayMessage.Confirm c) {
        for (long seq : c.seqs()) {
            if (!allowed(c.id(), c.transferId(), seq, true)) {
                return;
            }
        }
        try {
            int freed = store.confirm(c.transferId(), c.seqs());
            metrics.confirmed(freed);
            session.reply(new RelayMessage.Confirmed(c.id(), freed));
        } catch (StoreException e) {
            session.refuse(c.id(), e);
        }
    }

    /** Which of the blocks asked for are here, for a token that may read them all; frees nothing. */
    private void holds(RelayMessage.Holds h) {
        for (long seq : h.seqs()) {
            if (!allowed(h.id(), h.transferId(), seq, false)) {
                return;
            }
        }
        session.await(store.holds(h.transferId(), h.seqs()), (held, error) -> {
            if (error != null) {
                session.refuse(h.id(), error);
            } else {
                session.reply(new RelayMessage.Held(h.id(), h.transferId(), held));
            }
        });
    }

    /** Answered to the server that opened the transfer, and to a peer that showed a token for it, only. */
    private void status(RelayMessage.StatusRequest s) {
        boolean server = session.role() == RelayRole.SERVER;
        boolean owner = server && store.owner(s.transferId()).filter(session.server()::equals).isPresent();
        if (!owner && server && !session.tokens().containsKey(s.transferId())) {
            session.refuseNotOpen(s.id(), s.transferId()); // another server's, or none
            return;
        }
        if (!owner && !allowed(s.id(), s.transferId(), -1, false)) {
            return;
        }
        Optional<BlockStore.TransferStatus> st = store.status(s.transferId());
        if (st.isEmpty()) {
            session.refuseNotOpen(s.id(), s.transferId());
            return;
        }
        BlockStore.TransferStatus t = st.get();
        session.reply(new RelayMessage.Status(s.id(), s.transferId(), t.blocks(), t.bytes(), t.expiresAt(), store.used(),
                store.quota(), t.reservation()));
    }

    private static RelayErrorCode tokenCode(TokenException.Reason reason) {
        return switch (reason) {
            case MALFORMED -> RelayErrorCode.TOKEN_MALFORMED;
            case FORGED -> RelayErrorCode.TOKEN_FORGED;
            case EXPIRED -> RelayErrorCode.TOKEN_EXPIRED;
            case FOREIGN -> RelayErrorCode.TOKEN_FOREIGN;
        };
    }
}

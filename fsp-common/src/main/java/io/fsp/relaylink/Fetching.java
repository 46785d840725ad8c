package io.fsp.relaylink;

import io.fsp.relaylink.wire.RelayLimits;
import io.fsp.relaylink.wire.RelayMessage;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * The client's role on a relay link: it presents a capability token, fetches blocks, asks which the relay holds and
 * confirms the ones safe on its disk. Long lists go in batches of {@link RelayLimits#MAX_CONFIRM_SEQS}.
 */
final class Fetching {
    private final RelayLink link;

    Fetching(RelayLink link) {
        this.link = link;
    }

    CompletableFuture<Void> authorize(CapabilityToken token) {
        CompletableFuture<Void> accepted = link.request(id -> new RelayMessage.Authorize(id, token.encode()),
                link.config().requestTimeout(), Void.class);
        // The link is bound on the event loop, where its state lives: blocks go over it once it is.
        return accepted.thenComposeAsync(ok -> link.bindClearLink(), link.eventLoop());
    }

    CompletableFuture<ByteBuf> getBlock(TransferId transferId, long seq) {
        return link.request(id -> new RelayMessage.GetBlock(id, transferId, seq), link.config().requestTimeout(),
                ByteBuf.class);
    }

    CompletableFuture<Long> confirm(TransferId transferId, Collection<Long> seqs) {
        List<Long> all = List.copyOf(seqs);
        if (all.isEmpty()) {
            return CompletableFuture.completedFuture(0L);
        }
        CompletableFuture<Long> total = CompletableFuture.completedFuture(0L);
        for (int i = 0; i < all.size(); i += RelayLimits.MAX_CONFIRM_SEQS) {
            List<Long> part = all.subList(i, Math.min(all.size(), i + RelayLimits.MAX_CONFIRM_SEQS));
            CompletableFuture<Long> one = link.request(id -> new RelayMessage.Confirm(id, transferId, part),
                    link.config().requestTimeout(), Long.class);
            total = total.thenCombine(one, Long::sum);
        }
        return total;
    }

    CompletableFuture<Set<Long>> holds(TransferId transferId, Collection<Long> seqs) {
        List<Long> all = List.copyOf(seqs);
        CompletableFuture<Set<Long>> held = CompletableFuture.completedFuture(new TreeSet<>());
        for (int i = 0; i < all.size(); i += RelayLimits.MAX_CONFIRM_SEQS) {
            List<Long> part = all.subList(i, Math.min(all.size(), i + RelayLimits.MAX_CONFIRM_SEQS));
            CompletableFuture<RelayMessage.Held> one = link.request(id -> new RelayMessage.Holds(id, transferId, part),
                    link.config().requestTimeout(), RelayMessage.Held.class);
            Set<Long> asked = new HashSet<>(part);
            held = held.thenCombine(one, (set, h) -> {
                h.seqs().stream().filter(asked::contains).forEach(set::add); // only what was asked
                return set;
            });
        }
        return held;
    }
}

package io.fsp.testkit.relay;

import io.fsp.relay.store.BlockStore;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * For the ForeignBlock fault: the blocks servers pushed to one relay, seen by its fault injectors on every connection,
 * and from them the bytes of some other block still held, or random bytes if there is none.
 */
final class ForeignBlocks {
    private final Set<Key> pushed = ConcurrentHashMap.newKeySet();

    /** A server pushed this block (it may yet be refused: only held blocks are picked). */
    void pushed(TransferId transfer, long seq) {
        pushed.add(new Key(transfer, seq));
    }

    /** Some held block other than {@code seq} of {@code transfer}, from another transfer if there is one. */
    CompletableFuture<Optional<ByteBuf>> pick(BlockStore store, TransferId transfer, long seq) {
        Key sameTransfer = null;
        for (Key k : pushed) {
            if (store.held(k.transfer(), k.seq()).isEmpty()) {
                continue;
            }
            if (!k.transfer().equals(transfer)) {
                return store.get(k.transfer(), k.seq());
            }
            if (k.seq() != seq && sameTransfer == null) {
                sameTransfer = k;
            }
        }
        if (sameTransfer != null) {
            return store.get(sameTransfer.transfer(), sameTransfer.seq());
        }
        return store.get(transfer, seq).thenApply(real -> real.map(b -> {
            byte[] noise = new byte[b.readableBytes()];
            ThreadLocalRandom.current().nextBytes(noise);
            b.release();
            return Unpooled.wrappedBuffer(noise);
        }));
    }

    private record Key(TransferId transfer, long seq) {
    }
}

package io.fsp.testkit.relay;

import io.fsp.relay.store.BlockStore;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

/** For the ForeignBlock fault: the bytes of some other block, or random bytes if there is none. */
final class ForeignBlocks {
    private ForeignBlocks() {
    }

    static CompletableFuture<Optional<ByteBuf>> pick(BlockStore store, TransferId transfer, long seq) {
        Optional<BlockStore.BlockKey> other = store.anyOtherBlock(transfer, seq);
        if (other.isPresent()) {
            return store.get(other.get().transferId(), other.get().seq());
        }
        return store.get(transfer, seq).thenApply(real -> real.map(b -> {
            byte[] noise = new byte[b.readableBytes()];
            ThreadLocalRandom.current().nextBytes(noise);
            b.release();
            return Unpooled.wrappedBuffer(noise);
        }));
    }
}

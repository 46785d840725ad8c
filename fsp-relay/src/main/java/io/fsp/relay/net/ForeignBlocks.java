package io.fsp.relay.net;

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

    /**
     * A copy of {@code block} with one payload bit flipped and the trailing wire checksum recomputed over the
     * changed bytes (the tamper fault); releases {@code block}.
     */
    static ByteBuf tamper(ByteBuf block) {
        ByteBuf copy = block.alloc().buffer(block.readableBytes()).writeBytes(block);
        block.release();
        io.fsp.checksum.ChecksumAlgorithm algorithm = io.fsp.checksum.ChecksumAlgorithm.fromId(copy.getUnsignedByte(1));
        if (algorithm == null) {
            return copy;
        }
        int covered = copy.readableBytes() - algorithm.length();
        int at = covered - 8; // inside the payload, before the checksum
        copy.setByte(at, copy.getByte(at) ^ 0x01);
        io.fsp.checksum.Hasher hasher = algorithm.newHasher();
        hasher.update(copy, 0, covered);
        byte[] value = hasher.finish().value();
        copy.setBytes(covered, value);
        return copy;
    }
}

package io.fsp.block.stage;

import io.fsp.block.Block;
import io.fsp.block.BlockChecksumException;
import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Digest;
import io.fsp.checksum.Hasher;
import io.netty.buffer.ByteBuf;

/**
 * The checksum over a block exactly as sent (header and payload), appended to it (paper 004 §3.4). It catches
 * corruption on each hop without a key, so a relay can refuse a damaged block at once. Not thread-safe.
 */
public final class WireChecksum {
    private final Hasher hasher;

    public WireChecksum(ChecksumAlgorithm algorithm) {
        this.hasher = algorithm.newHasher();
    }

    public ChecksumAlgorithm algorithm() {
        return hasher.algorithm();
    }

    /** Checksum of {@code length} bytes at {@code index}. */
    public Digest compute(ByteBuf buf, int index, int length) {
        hasher.reset();
        return hasher.update(buf, index, length).finish();
    }

    /** Appends the checksum of the readable bytes of {@code wire} at its writer index. */
    public void append(ByteBuf wire) {
        compute(wire, wire.readerIndex(), wire.readableBytes()).writeTo(wire);
    }

    /** Throws if the block's trailing checksum does not match; uses the block's own algorithm. */
    public void verify(Block block) {
        Hasher h = block.header().checksum() == hasher.algorithm() ? hasher : block.header().checksum().newHasher();
        if (!block.checksumMatches(h)) {
            throw new BlockChecksumException(block.header().id() + ": " + h.algorithm().label()
                    + " checksum mismatch (expected: the value at the end of the block)");
        }
    }
}

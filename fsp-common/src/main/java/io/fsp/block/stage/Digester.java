package io.fsp.block.stage;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Digest;
import io.fsp.checksum.Hasher;
import io.netty.buffer.ByteBuf;

/**
 * Digest of a block's plaintext file data. The server sends it to the client over the TLS control channel,
 * never through a relay, so the client can verify every byte end to end. Not thread-safe.
 */
public final class Digester {
    private final Hasher hasher;

    public Digester(ChecksumAlgorithm algorithm) {
        this.hasher = algorithm.newHasher();
    }

    public ChecksumAlgorithm algorithm() {
        return hasher.algorithm();
    }

    /** Digest of the readable bytes of {@code data}; the indices do not move. */
    public Digest digest(ByteBuf data) {
        hasher.reset();
        return hasher.update(data).finish();
    }
}

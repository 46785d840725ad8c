package io.fsp.client.verify;

import io.fsp.checksum.ChecksumAlgorithm;
import io.netty.buffer.Unpooled;

import java.nio.ByteBuffer;
import java.util.Objects;

/** A {@link HashAlgorithm} backed by one of the wire's {@link ChecksumAlgorithm}s, the ones the server digests with. */
public record ChecksumHash(ChecksumAlgorithm algorithm) implements HashAlgorithm {
    public ChecksumHash {
        Objects.requireNonNull(algorithm, "algorithm");
    }

    @Override
    public String name() {
        return algorithm.label();
    }

    @Override
    public Hasher newHasher() {
        io.fsp.checksum.Hasher h = algorithm.newHasher();
        return new Hasher() {
            @Override
            public void update(ByteBuffer data) {
                // Wrapping shares the memory: no copy.
                h.update(Unpooled.wrappedBuffer(data.duplicate()));
            }

            @Override
            public byte[] finish() {
                return h.finish().value();
            }
        };
    }

    @Override
    public String toString() {
        return name();
    }
}

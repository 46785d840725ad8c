package io.fsp.checksum;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.zip.Checksum;

/**
 * The algorithms the JDK computes with CPU intrinsics: MD5, SHA-1 and SHA-256 ({@link MessageDigest}) and
 * CRC32C, CRC32 and Adler-32 ({@code java.util.zip}). Both JDK interfaces take arrays and NIO buffers
 * alike; they differ only in how the value comes out, which {@link Engine} hides.
 */
final class JdkHasher implements Hasher {
    private interface Engine {
        void update(byte[] bytes, int offset, int length);

        void update(ByteBuffer bytes);

        /** The value, big-endian; resets. */
        byte[] finish();

        void reset();
    }

    private final ChecksumAlgorithm algorithm;
    private final Engine engine;

    private JdkHasher(ChecksumAlgorithm algorithm, Engine engine) {
        this.algorithm = algorithm;
        this.engine = engine;
    }

    static Hasher of(ChecksumAlgorithm algorithm, MessageDigest digest) {
        return new JdkHasher(algorithm, new Engine() {
            @Override
            public void update(byte[] bytes, int offset, int length) {
                digest.update(bytes, offset, length);
            }

            @Override
            public void update(ByteBuffer bytes) {
                digest.update(bytes);
            }

            @Override
            public byte[] finish() {
                return digest.digest();
            }

            @Override
            public void reset() {
                digest.reset();
            }
        });
    }

    /** For the 32-bit checksums of {@code java.util.zip}. */
    static Hasher of(ChecksumAlgorithm algorithm, Checksum checksum) {
        return new JdkHasher(algorithm, new Engine() {
            @Override
            public void update(byte[] bytes, int offset, int length) {
                checksum.update(bytes, offset, length);
            }

            @Override
            public void update(ByteBuffer bytes) {
                checksum.update(bytes);
            }

            @Override
            public byte[] finish() {
                long v = checksum.getValue();
                checksum.reset();
                return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
            }

            @Override
            public void reset() {
                checksum.reset();
            }
        });
    }

    @Override
    public ChecksumAlgorithm algorithm() {
        return algorithm;
    }

    @Override
    public Hasher update(ByteBuf buf, int index, int length) {
        if (buf.hasArray()) {
            engine.update(buf.array(), buf.arrayOffset() + index, length);
        } else {
            for (ByteBuffer part : buf.nioBuffers(index, length)) {
                engine.update(part);
            }
        }
        return this;
    }

    @Override
    public Hasher update(ByteBuffer data) {
        engine.update(data.duplicate()); // both JDK interfaces move the position of what they are given
        return this;
    }

    @Override
    public Hasher update(byte[] bytes, int offset, int length) {
        engine.update(bytes, offset, length);
        return this;
    }

    @Override
    public Digest finish() {
        return new Digest(algorithm, engine.finish());
    }

    @Override
    public void reset() {
        engine.reset();
    }
}

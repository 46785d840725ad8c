package io.fsp.checksum;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.security.MessageDigest;

/** MD5, SHA-1 and SHA-256 through the JDK provider (SHA intrinsics where the CPU has them). */
final class MessageDigestHasher implements Hasher {
    private final ChecksumAlgorithm algorithm;
    private final MessageDigest digest;

    MessageDigestHasher(ChecksumAlgorithm algorithm, MessageDigest digest) {
        this.algorithm = algorithm;
        this.digest = digest;
    }

    @Override
    public ChecksumAlgorithm algorithm() {
        return algorithm;
    }

    @Override
    public Hasher update(ByteBuf buf, int index, int length) {
        if (buf.hasArray()) {
            digest.update(buf.array(), buf.arrayOffset() + index, length);
        } else {
            for (ByteBuffer part : buf.nioBuffers(index, length)) {
                digest.update(part);
            }
        }
        return this;
    }

    @Override
    public Hasher update(byte[] bytes, int offset, int length) {
        digest.update(bytes, offset, length);
        return this;
    }

    @Override
    public Digest finish() {
        return new Digest(algorithm, digest.digest());
    }

    @Override
    public void reset() {
        digest.reset();
    }
}

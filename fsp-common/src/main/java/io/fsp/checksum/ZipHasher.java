package io.fsp.checksum;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.zip.Checksum;

/** CRC32C, CRC32 and Adler-32 through {@code java.util.zip}, which has intrinsics for direct buffers. */
final class ZipHasher implements Hasher {
    private final ChecksumAlgorithm algorithm;
    private final Checksum checksum;

    ZipHasher(ChecksumAlgorithm algorithm, Checksum checksum) {
        this.algorithm = algorithm;
        this.checksum = checksum;
    }

    @Override
    public ChecksumAlgorithm algorithm() {
        return algorithm;
    }

    @Override
    public Hasher update(ByteBuf buf, int index, int length) {
        if (buf.hasArray()) {
            checksum.update(buf.array(), buf.arrayOffset() + index, length);
        } else {
            for (ByteBuffer part : buf.nioBuffers(index, length)) {
                checksum.update(part);
            }
        }
        return this;
    }

    @Override
    public Hasher update(byte[] bytes, int offset, int length) {
        checksum.update(bytes, offset, length);
        return this;
    }

    @Override
    public Digest finish() {
        long v = checksum.getValue();
        checksum.reset();
        return new Digest(algorithm, new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
    }

    @Override
    public void reset() {
        checksum.reset();
    }
}

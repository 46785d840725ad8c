package io.fsp.checksum;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import org.bouncycastle.crypto.digests.Blake3Digest;

/** BLAKE3-256 through Bouncy Castle, which only reads arrays: direct buffers pass through a small scratch. */
final class Blake3Hasher implements Hasher {
    private static final int SCRATCH = 16 * 1024;
    private final Blake3Digest digest = new Blake3Digest(256);
    private byte[] scratch;

    @Override
    public ChecksumAlgorithm algorithm() {
        return ChecksumAlgorithm.BLAKE3;
    }

    @Override
    public Hasher update(ByteBuf buf, int index, int length) {
        if (buf.hasArray()) {
            digest.update(buf.array(), buf.arrayOffset() + index, length);
            return this;
        }
        for (ByteBuffer part : buf.nioBuffers(index, length)) {
            update(part);
        }
        return this;
    }

    @Override
    public Hasher update(ByteBuffer data) {
        if (data.hasArray()) {
            digest.update(data.array(), data.arrayOffset() + data.position(), data.remaining());
            return this;
        }
        if (scratch == null) {
            scratch = new byte[SCRATCH];
        }
        int end = data.limit();
        for (int i = data.position(); i < end; i += SCRATCH) {
            int n = Math.min(SCRATCH, end - i);
            data.get(i, scratch, 0, n); // absolute: the position stays
            digest.update(scratch, 0, n);
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
        byte[] out = new byte[32];
        digest.doFinal(out, 0);
        return new Digest(ChecksumAlgorithm.BLAKE3, out);
    }

    @Override
    public void reset() {
        digest.reset();
    }
}

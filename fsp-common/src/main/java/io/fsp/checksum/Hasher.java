package io.fsp.checksum;

import io.netty.buffer.ByteBuf;

/**
 * Incremental checksum or digest computation for one {@link ChecksumAlgorithm}. Not thread-safe: use one
 * per thread. {@link #finish()} resets the hasher, so it can be reused for the next block.
 */
public interface Hasher {

    ChecksumAlgorithm algorithm();

    /** Feeds {@code length} bytes starting at {@code index}, without moving the buffer's indices. */
    Hasher update(ByteBuf buf, int index, int length);

    /** Feeds the readable bytes of {@code buf}, without moving its indices. */
    default Hasher update(ByteBuf buf) {
        return update(buf, buf.readerIndex(), buf.readableBytes());
    }

    Hasher update(byte[] bytes, int offset, int length);

    default Hasher update(byte[] bytes) {
        return update(bytes, 0, bytes.length);
    }

    /** Returns the value of everything fed since the last reset, and resets. */
    Digest finish();

    /** Forgets everything fed so far. */
    void reset();
}

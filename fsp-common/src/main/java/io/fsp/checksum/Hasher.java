package io.fsp.checksum;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;

/**
 * Incremental checksum or digest computation for one {@link ChecksumAlgorithm}. Not thread-safe: use one
 * per thread. {@link #finish()} resets the hasher, so it can be reused for the next block.
 *
 * <p>No {@code update} moves the caller's buffer: not its indices, position, limit or mark, not even for a
 * while. Another thread may read the same buffer at the same time (the client writes a block to disk while
 * it hashes it).
 */
public interface Hasher {

    ChecksumAlgorithm algorithm();

    /** Feeds {@code length} bytes starting at {@code index}, without moving the buffer's indices. */
    Hasher update(ByteBuf buf, int index, int length);

    /** Feeds the readable bytes of {@code buf}, without moving its indices. */
    default Hasher update(ByteBuf buf) {
        return update(buf, buf.readerIndex(), buf.readableBytes());
    }

    /** Feeds the bytes from {@code data}'s position to its limit, without moving its position. */
    Hasher update(ByteBuffer data);

    Hasher update(byte[] bytes, int offset, int length);

    default Hasher update(byte[] bytes) {
        return update(bytes, 0, bytes.length);
    }

    /** Returns the value of everything fed since the last reset, and resets. */
    Digest finish();

    /** Forgets everything fed so far. */
    void reset();
}

package io.fsp.client.verify;

import java.nio.ByteBuffer;

/** One running digest computation. Not thread-safe: one hasher per thread. */
public interface Hasher {
    /** Feeds the bytes from the buffer's position to its limit; the buffer's position is not moved. */
    void update(ByteBuffer data);

    /** Returns the digest of everything fed since the last call and starts over. */
    byte[] finish();
}

package io.fsp.relaylink.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.RecvByteBufAllocator;

/**
 * A channel's reads for a clear link (§3.7): while its decoder gathers a block frame, the socket is read straight
 * into the block's own buffer instead of into a read buffer the decoder copies from, so a block byte crosses user
 * space once, and one read may take the whole rest of the block instead of the allocator's guess. Everything else
 * is read as the channel's allocator would. Installed before the channel's first read (Netty keeps the handle it
 * makes then); {@link #into} names the decoder once the channel turns out to be a clear link. Not for a channel
 * with TLS before its decoder: there the socket's bytes are not the frames' bytes.
 */
public final class BlockReads implements RecvByteBufAllocator {
    private final RecvByteBufAllocator delegate;
    /** Set and read on the channel's event loop only. */
    private RelayFrameDecoder decoder;

    private BlockReads(RecvByteBufAllocator delegate) {
        this.delegate = delegate;
    }

    /** Makes {@code channel} read through a new instance, which reads as before until {@link #into} is called. */
    public static BlockReads install(Channel channel) {
        BlockReads reads = new BlockReads(channel.config().getRecvByteBufAllocator());
        channel.config().setRecvByteBufAllocator(reads);
        return reads;
    }

    /** From now on the rest of every block frame {@code decoder} gathers is read into its buffer. */
    public void into(RelayFrameDecoder decoder) {
        this.decoder = decoder;
    }

    @Override
    public Handle newHandle() {
        return new DelegatingHandle(delegate.newHandle()) {
            @Override
            public ByteBuf allocate(ByteBufAllocator alloc) {
                ByteBuf target = decoder == null ? null : decoder.readTarget();
                return target != null ? target : super.allocate(alloc);
            }
        };
    }
}

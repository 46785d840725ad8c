package io.fsp.block.stage;

import io.fsp.block.BlockDescriptor;
import io.fsp.block.BlockHeader;
import io.fsp.checksum.Digest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * What the receiver side of a {@link BlockPipeline} produces: the plaintext file data ({@link #content()},
 * exactly {@code descriptor().dataLength()} bytes) with where it belongs and, if the pipeline digests, its
 * digest to compare with the one announced over the control channel. Release it after the positional write.
 */
public final class OpenedBlock extends DefaultByteBufHolder {
    private final BlockHeader header;
    private final BlockDescriptor descriptor;
    private final Digest digest;

    public OpenedBlock(BlockHeader header, BlockDescriptor descriptor, ByteBuf data, Digest digest) {
        super(data);
        this.header = header;
        this.descriptor = descriptor;
        this.digest = digest;
    }

    public BlockHeader header() {
        return header;
    }

    public BlockDescriptor descriptor() {
        return descriptor;
    }

    /** Digest of the data, or {@code null} when the pipeline has no digester. */
    public Digest digest() {
        return digest;
    }

    @Override
    public OpenedBlock replace(ByteBuf content) {
        return new OpenedBlock(header, descriptor, content, digest);
    }

    @Override
    public OpenedBlock retain() {
        super.retain();
        return this;
    }

    @Override
    public OpenedBlock touch(Object hint) {
        super.touch(hint);
        return this;
    }

    @Override
    public String toString() {
        return header.id() + " [" + descriptor.name() + " @" + descriptor.fileOffset() + "+" + descriptor.dataLength() + "]";
    }
}

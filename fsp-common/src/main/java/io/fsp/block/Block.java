package io.fsp.block;

import io.fsp.checksum.Hasher;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;

/**
 * One block exactly as it travels: {@link #content()} holds header, payload and checksum, byte for byte.
 * A relay stores and forwards the content as it is (no re-encoding), so what the client receives is what
 * the server sent. The header is parsed once and kept alongside.
 */
public final class Block extends DefaultByteBufHolder {
    private final BlockHeader header;
    private final boolean checksumVerified;

    /** Wraps the wire bytes of a block whose header is {@code header}; takes ownership of {@code wire}. */
    public Block(BlockHeader header, ByteBuf wire) {
        this(header, wire, false);
    }

    Block(BlockHeader header, ByteBuf wire, boolean checksumVerified) {
        super(wire);
        if (wire.readableBytes() != header.blockLength()) {
            throw new IllegalArgumentException(header.id() + ": wire length: " + wire.readableBytes()
                    + " (expected: " + header.blockLength() + ")");
        }
        this.header = header;
        this.checksumVerified = checksumVerified;
    }

    public BlockHeader header() {
        return header;
    }

    /** Whether the decoder that produced this block already checked its wire checksum. */
    public boolean checksumVerified() {
        return checksumVerified;
    }

    /** The clear header bytes (the GCM associated data of an encrypted block); a slice, not retained. */
    public ByteBuf headerBytes() {
        return content().slice(content().readerIndex(), header.headerLength());
    }

    /** The payload bytes; a slice, not retained. */
    public ByteBuf payload() {
        return content().slice(content().readerIndex() + header.headerLength(), header.payloadLength());
    }

    /** Whether the trailing checksum matches header and payload. Resets and uses {@code hasher}. */
    public boolean checksumMatches(Hasher hasher) {
        if (hasher.algorithm() != header.checksum()) {
            throw new IllegalArgumentException("hasher: " + hasher.algorithm() + " (expected: " + header.checksum() + ")");
        }
        ByteBuf wire = content();
        int covered = header.headerLength() + header.payloadLength();
        hasher.reset();
        hasher.update(wire, wire.readerIndex(), covered);
        return hasher.finish().matches(wire, wire.readerIndex() + covered);
    }

    /** This block marked as checksum-verified (same content, no new reference). */
    public Block asVerified() {
        return new Block(header, content(), true);
    }

    @Override
    public Block replace(ByteBuf content) {
        return new Block(header, content, false);
    }

    @Override
    public Block copy() {
        return replace(content().copy());
    }

    @Override
    public Block duplicate() {
        return replace(content().duplicate());
    }

    @Override
    public Block retainedDuplicate() {
        return replace(content().retainedDuplicate());
    }

    @Override
    public Block retain() {
        super.retain();
        return this;
    }

    @Override
    public Block retain(int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public Block touch() {
        super.touch();
        return this;
    }

    @Override
    public Block touch(Object hint) {
        super.touch(hint);
        return this;
    }

    @Override
    public String toString() {
        return header.id() + " [" + header.flags() + ", " + header.blockLength() + " bytes]";
    }
}

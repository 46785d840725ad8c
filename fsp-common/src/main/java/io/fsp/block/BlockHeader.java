package io.fsp.block;

import io.fsp.checksum.ChecksumAlgorithm;
import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * The clear part of a block: everything a relay may read (docs/protocol.md §2.2). Big-endian, 22 bytes,
 * followed by the {@link BlockDescriptor} only for a data block that is not encrypted:
 *
 * <pre>
 *  0 u8  version          = 1
 *  1 u8  checksum algorithm ({@link ChecksumAlgorithm#id()})
 *  2 u16 flags            ({@link BlockFlags})
 *  4 u16 header length    (22, or 22 + descriptor)
 *  6 u32 payload length
 * 10 u64 transfer id
 * 18 u32 sequence number
 * </pre>
 *
 * The whole clear header is the associated data of the AES-GCM encryption, so no bit of it can change
 * unnoticed once a block is encrypted.
 *
 * @param descriptor present exactly for a data block that is not encrypted
 */
public record BlockHeader(int version, ChecksumAlgorithm checksum, BlockFlags flags, long transferId, long sequence,
                          int payloadLength, BlockDescriptor descriptor) {
    public static final int VERSION = 1;
    public static final int FIXED_LENGTH = 22;
    /** Length of the AES-GCM authentication tag at the end of an encrypted payload. */
    public static final int TAG_LENGTH = 16;
    public static final long MAX_SEQUENCE = 0xFFFF_FFFFL;

    public BlockHeader {
        Objects.requireNonNull(checksum, "checksum");
        Objects.requireNonNull(flags, "flags");
        if (version != VERSION) {
            throw new IllegalArgumentException("version: " + version + " (expected: " + VERSION + ")");
        }
        if (sequence < 0 || sequence > MAX_SEQUENCE) {
            throw new IllegalArgumentException("sequence: " + sequence + " (expected: 0.." + MAX_SEQUENCE + ")");
        }
        if (payloadLength < 0) {
            throw new IllegalArgumentException("payloadLength: " + payloadLength + " (expected: >= 0)");
        }
        boolean clearData = flags.isData() && !flags.isEncrypted();
        if (clearData != (descriptor != null)) {
            throw new IllegalArgumentException("descriptor: " + (descriptor == null ? "absent" : "present")
                    + " (expected: present exactly on a clear DATA block, flags " + flags + ")");
        }
    }

    /** Header of a data block; {@code descriptor} is dropped when the flags say ENCRYPTED. */
    public static BlockHeader data(ChecksumAlgorithm checksum, BlockFlags flags, long transferId, long sequence,
                                   int payloadLength, BlockDescriptor descriptor) {
        return new BlockHeader(VERSION, checksum, flags, transferId, sequence, payloadLength,
                flags.isEncrypted() ? null : descriptor);
    }

    public int headerLength() {
        return FIXED_LENGTH + (descriptor == null ? 0 : descriptor.encodedLength());
    }

    /** Header, payload and checksum: the bytes this block takes on the wire. */
    public int blockLength() {
        return headerLength() + payloadLength + checksum.length();
    }

    /** Writes the clear header (and clear descriptor) at the writer index. */
    public void encode(ByteBuf out) {
        out.writeByte(version);
        out.writeByte(checksum.id());
        out.writeShort(flags.bits());
        out.writeShort(headerLength());
        out.writeInt(payloadLength);
        out.writeLong(transferId);
        out.writeInt((int) sequence);
        if (descriptor != null) {
            descriptor.encode(out);
        }
    }

    /** {@code "block 1f2e3d#17"}: how errors and logs name a block. */
    public String id() {
        return id(transferId, sequence);
    }

    public static String id(long transferId, long sequence) {
        return "block " + Long.toHexString(transferId) + "#" + sequence;
    }
}

package io.fsp.block;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Where a data block's bytes belong: the relative file name, the offset in that file and the number of file
 * bytes (before compression). In a clear block it follows the fixed header; in an encrypted block it is the
 * first part of the ciphertext, so relays learn neither names nor offsets (docs/protocol.md §2.4).
 *
 * <pre>
 * u64 file offset | u32 data length | u16 name length N | N bytes UTF-8 name
 * </pre>
 */
public record BlockDescriptor(long fileOffset, int dataLength, String name) {
    public static final int FIXED_LENGTH = 14;
    /** The longest name that still fits a clear header of at most 65535 bytes. */
    public static final int MAX_NAME_LENGTH = 0xFFFF - BlockHeader.FIXED_LENGTH - FIXED_LENGTH;

    public BlockDescriptor {
        Objects.requireNonNull(name, "name");
        if (fileOffset < 0) {
            throw new IllegalArgumentException("fileOffset: " + fileOffset + " (expected: >= 0)");
        }
        if (dataLength < 0) {
            throw new IllegalArgumentException("dataLength: " + dataLength + " (expected: >= 0)");
        }
        if (fileOffset > Long.MAX_VALUE - dataLength) {
            throw new IllegalArgumentException("fileOffset + dataLength: overflow (expected: <= " + Long.MAX_VALUE + ")");
        }
        RelativePaths.requireSafe(name);
        int nameLength = ByteBufUtil.utf8Bytes(name);
        if (nameLength > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException("name length: " + nameLength + " bytes (expected: <= " + MAX_NAME_LENGTH + ")");
        }
    }

    /** Bytes this descriptor takes on the wire. */
    public int encodedLength() {
        return encodedLength(name);
    }

    /** Bytes a descriptor naming {@code name} takes on the wire. */
    public static int encodedLength(String name) {
        return FIXED_LENGTH + ByteBufUtil.utf8Bytes(name);
    }

    public void encode(ByteBuf out) {
        out.writeLong(fileOffset);
        out.writeInt(dataLength);
        int n = ByteBufUtil.utf8Bytes(name);
        out.writeShort(n);
        ByteBufUtil.reserveAndWriteUtf8(out, name, n); // exactly n: out may have no more room than that
    }

    /**
     * Decodes a descriptor starting at {@code index}, reading no further than {@code index + available}.
     *
     * @param block the block's name for error messages
     */
    public static BlockDescriptor decode(ByteBuf buf, int index, int available, BlockLimits limits, String block) {
        if (available < FIXED_LENGTH) {
            throw new TruncatedBlockException(block + ": descriptor length: " + available
                    + " (expected: >= " + FIXED_LENGTH + ")");
        }
        long offset = buf.getLong(index);
        long dataLength = buf.getUnsignedInt(index + 8);
        int nameLength = buf.getUnsignedShort(index + 12);
        if (offset < 0) {
            throw new BlockFormatException(block + ": file offset: " + Long.toUnsignedString(offset)
                    + " (expected: <= " + Long.MAX_VALUE + ")");
        }
        if (dataLength > limits.maxDataLength()) {
            throw new BlockTooLongException(block + ": data length: " + dataLength
                    + " (expected: <= " + limits.maxDataLength() + ")");
        }
        if (offset > Long.MAX_VALUE - dataLength) {
            throw new BlockFormatException(block + ": file offset + data length: overflow (expected: <= " + Long.MAX_VALUE + ")");
        }
        if (nameLength > limits.maxNameLength()) {
            throw new BlockTooLongException(block + ": name length: " + nameLength
                    + " (expected: <= " + limits.maxNameLength() + ")");
        }
        if (available - FIXED_LENGTH < nameLength) {
            throw new TruncatedBlockException(block + ": name length: " + nameLength
                    + " (expected: <= " + (available - FIXED_LENGTH) + ", the bytes left)");
        }
        String name;
        try {
            name = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(buf.nioBuffer(index + FIXED_LENGTH, nameLength))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new UnsafeBlockNameException(block + ": name is not valid UTF-8 (expected: UTF-8)", e);
        }
        String problem = RelativePaths.problem(name);
        if (problem != null) {
            throw new UnsafeBlockNameException(block + ": " + problem);
        }
        return new BlockDescriptor(offset, (int) dataLength, name);
    }
}

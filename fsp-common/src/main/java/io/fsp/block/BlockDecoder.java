package io.fsp.block;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Hasher;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Frames a byte stream into {@link Block}s (docs/protocol.md §2). A state machine: it validates each header
 * field as soon as its bytes arrive, so a bad version, flag or length is refused before the rest of the
 * block is buffered; then it waits for the whole block, slices it out of the cumulation without copying and
 * checks the wire checksum. A relay can do all of this without a key.
 *
 * <p>After any error the stream can no longer be framed: the decoder drops everything that follows and the
 * exception (a {@link BlockFormatException} or {@link BlockTooLongException}) goes down the pipeline, whose
 * handler closes the channel. Other channels are unaffected.
 */
public final class BlockDecoder extends ByteToMessageDecoder {
    private enum State { READ_HEADER, READ_BLOCK, FAILED }

    private final BlockLimits limits;
    private final boolean verifyChecksum;
    private final Map<ChecksumAlgorithm, Hasher> hashers = new EnumMap<>(ChecksumAlgorithm.class);
    private State state = State.READ_HEADER;
    private BlockHeader header;

    public BlockDecoder(BlockLimits limits) {
        this(limits, true);
    }

    /** @param verifyChecksum false only where a later stage verifies it (the check is cheap with CRC32C) */
    public BlockDecoder(BlockLimits limits, boolean verifyChecksum) {
        this.limits = limits;
        this.verifyChecksum = verifyChecksum;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        try {
            switch (state) {
                case READ_HEADER:
                    header = readHeader(in, in.readerIndex(), in.readableBytes(), limits);
                    if (header == null) {
                        return;
                    }
                    state = State.READ_BLOCK;
                    // fall through: the block may be complete already
                case READ_BLOCK:
                    int length = header.blockLength();
                    if (in.readableBytes() < length) {
                        return;
                    }
                    Block block = new Block(header, in.readRetainedSlice(length), verifyChecksum);
                    if (verifyChecksum && !block.checksumMatches(hasher(header.checksum()))) {
                        block.release();
                        throw new BlockChecksumException(header.id() + ": " + header.checksum().label()
                                + " checksum mismatch (expected: the value at the end of the block)");
                    }
                    header = null;
                    state = State.READ_HEADER;
                    out.add(block);
                    return;
                case FAILED:
                    in.skipBytes(in.readableBytes());
                    return;
                default:
                    throw new AssertionError(state);
            }
        } catch (RuntimeException e) {
            state = State.FAILED;
            in.skipBytes(in.readableBytes());
            throw e;
        }
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        super.decodeLast(ctx, in, out);
        if (state != State.FAILED && in.isReadable()) {
            String what = header == null ? "block header" : header.id();
            int expected = header == null ? BlockHeader.FIXED_LENGTH : header.blockLength();
            int got = in.readableBytes();
            state = State.FAILED;
            in.skipBytes(got);
            throw new TruncatedBlockException("stream ended inside " + what + ": " + got + " bytes (expected: "
                    + (header == null ? ">= " : "") + expected + ")");
        }
    }

    private Hasher hasher(ChecksumAlgorithm algorithm) {
        return hashers.computeIfAbsent(algorithm, ChecksumAlgorithm::newHasher);
    }

    /**
     * The fixed part of a block's header (its first {@link BlockHeader#FIXED_LENGTH} bytes), every field checked:
     * enough to know how long the whole block is and which one it is, before any more of it is read.
     */
    public record Frame(ChecksumAlgorithm checksum, BlockFlags flags, int headerLength, int payloadLength, long transferId,
                        long sequence) {
        /** Header, payload and checksum: the bytes the whole block takes. */
        public int blockLength() {
            return headerLength + payloadLength + checksum.length();
        }
    }

    /**
     * Parses the header of the block starting at {@code index}, checking each field as soon as its bytes are
     * among the {@code readable} ones. Returns {@code null} while more bytes are needed; never reads past
     * {@code index + readable}.
     */
    public static BlockHeader readHeader(ByteBuf in, int index, int readable, BlockLimits limits) {
        Frame frame = readFrame(in, index, readable, limits);
        if (frame == null || readable < frame.headerLength()) {
            return null;
        }
        int headerLength = frame.headerLength();
        long payloadLength = frame.payloadLength();
        BlockFlags flags = frame.flags();
        BlockDescriptor descriptor = null;
        if (flags.isData() && !flags.isEncrypted()) {
            String id = BlockHeader.id(frame.transferId(), frame.sequence());
            int available = headerLength - BlockHeader.FIXED_LENGTH;
            descriptor = BlockDescriptor.decode(in, index + BlockHeader.FIXED_LENGTH, available, limits, id);
            if (descriptor.encodedLength() != available) {
                throw new BlockFormatException(id + ": header length: " + headerLength + " (expected: "
                        + (BlockHeader.FIXED_LENGTH + descriptor.encodedLength()) + ", the descriptor's end)");
            }
            if (flags.isCompressed() ? payloadLength >= descriptor.dataLength() : payloadLength != descriptor.dataLength()) {
                throw new BlockFormatException(id + ": payload length: " + payloadLength + " (expected: "
                        + (flags.isCompressed() ? "< " : "") + descriptor.dataLength() + ", the data length)");
            }
        }
        return new BlockHeader(BlockHeader.VERSION, frame.checksum(), flags, frame.transferId(), frame.sequence(),
                frame.payloadLength(), descriptor);
    }

    /**
     * Parses the fixed part of the header of the block starting at {@code index}, checking each field as soon
     * as its bytes are among the {@code readable} ones. Returns {@code null} while more bytes are needed; never
     * reads past {@code index + readable}.
     */
    public static Frame readFrame(ByteBuf in, int index, int readable, BlockLimits limits) {
        if (readable < 1) {
            return null;
        }
        int version = in.getUnsignedByte(index);
        if (version != BlockHeader.VERSION) {
            throw new UnsupportedBlockVersionException("block version: " + version + " (expected: " + BlockHeader.VERSION + ")");
        }
        if (readable < 2) {
            return null;
        }
        int checksumId = in.getUnsignedByte(index + 1);
        ChecksumAlgorithm checksum = ChecksumAlgorithm.fromId(checksumId);
        if (checksum == null) {
            throw new BlockFormatException("checksum algorithm: " + checksumId + " (expected: 1.."
                    + ChecksumAlgorithm.values().length + ")");
        }
        if (readable < 4) {
            return null;
        }
        int bits = in.getUnsignedShort(index + 2);
        String flagProblem = BlockFlags.problem(bits);
        if (flagProblem != null) {
            throw new BlockFormatException(flagProblem);
        }
        BlockFlags flags = new BlockFlags(bits);
        boolean clearData = flags.isData() && !flags.isEncrypted();
        if (readable < 6) {
            return null;
        }
        int headerLength = in.getUnsignedShort(index + 4);
        if (clearData) {
            if (headerLength > limits.maxHeaderLength()) {
                throw new BlockTooLongException("header length: " + headerLength + " (expected: <= " + limits.maxHeaderLength() + ")");
            }
            int min = BlockHeader.FIXED_LENGTH + BlockDescriptor.FIXED_LENGTH + 1;
            if (headerLength < min) {
                throw new BlockFormatException("header length: " + headerLength + " (expected: >= " + min
                        + " for a clear DATA block)");
            }
        } else if (headerLength != BlockHeader.FIXED_LENGTH) {
            throw new BlockFormatException("header length: " + headerLength + " (expected: " + BlockHeader.FIXED_LENGTH
                    + " for " + flags + ")");
        }
        if (readable < 10) {
            return null;
        }
        long payloadLength = in.getUnsignedInt(index + 6);
        checkPayloadLength(flags, payloadLength, limits);
        if (readable < BlockHeader.FIXED_LENGTH) {
            return null;
        }
        long transferId = in.getLong(index + 10);
        long sequence = in.getUnsignedInt(index + 18);
        return new Frame(checksum, flags, headerLength, (int) payloadLength, transferId, sequence);
    }

    private static void checkPayloadLength(BlockFlags flags, long payloadLength, BlockLimits limits) {
        if (flags.isData() && flags.isEncrypted()) {
            if (payloadLength > limits.maxPayloadLength()) {
                throw new BlockTooLongException("payload length: " + payloadLength + " (expected: <= " + limits.maxPayloadLength() + ")");
            }
            int min = BlockDescriptor.FIXED_LENGTH + 1 + BlockHeader.TAG_LENGTH;
            if (payloadLength < min) {
                throw new BlockFormatException("payload length: " + payloadLength + " (expected: >= " + min
                        + ", a sealed descriptor and tag)");
            }
        } else if (flags.isData()) {
            if (payloadLength > limits.maxDataLength()) {
                throw new BlockTooLongException("payload length: " + payloadLength + " (expected: <= " + limits.maxDataLength() + ")");
            }
        } else {
            int expected = flags.hasBufferSize() ? 4 : 0;
            if (payloadLength != expected) {
                throw new BlockFormatException("payload length: " + payloadLength + " (expected: " + expected + " for " + flags + ")");
            }
        }
    }
}

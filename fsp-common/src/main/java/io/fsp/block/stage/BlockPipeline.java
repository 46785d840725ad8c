package io.fsp.block.stage;

import io.fsp.block.Block;
import io.fsp.block.BlockDescriptor;
import io.fsp.block.BlockFlags;
import io.fsp.block.BlockFormatException;
import io.fsp.block.BlockHeader;
import io.fsp.block.BlockLimits;
import io.fsp.block.BlockTooLongException;
import io.fsp.block.ReplayedBlockException;
import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Digest;
import io.fsp.crypto.NonceSequence;
import io.fsp.crypto.ReplayGuard;
import io.fsp.crypto.TransferKey;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The stages of one transfer in the order of docs/protocol.md §2.5.
 *
 * <ul>
 *   <li>Sender ({@link #seal}): digest the plaintext → compress (kept only if shorter) → encrypt descriptor
 *       and data under the clear header as associated data → append the wire checksum.</li>
 *   <li>Receiver ({@link #open}): verify the wire checksum (unless the decoder did) → decrypt and
 *       authenticate → decompress into exactly the announced length → digest.</li>
 * </ul>
 *
 * Buffers come from the allocator (pooled, direct by default); the only copies are the ones a stage makes by
 * its nature (compressed output, ciphertext, plaintext). A clear, uncompressed block shares the caller's
 * data buffer. Holds per-stage state: not thread-safe; use one pipeline per thread, sharing one
 * {@link NonceSequence} (and {@link ReplayGuard}) per transfer. {@link #close()} frees native zstd memory.
 */
public final class BlockPipeline implements AutoCloseable {
    private final ByteBufAllocator alloc;
    private final BlockLimits limits;
    private final long transferId;
    private final WireChecksum checksum;
    private final Digester digester;
    private final Executor digestExecutor;
    private final int compressionLevel;
    private final Encryptor encryptor;
    private final NonceSequence sequence;
    private final ReplayGuard replayGuard;
    private final int bodyAlignment;
    private Compressor compressor;

    private BlockPipeline(Builder b) {
        this.alloc = b.alloc;
        this.limits = b.limits;
        this.transferId = b.key != null ? b.key.transferId() : b.transferId;
        this.checksum = new WireChecksum(b.checksum);
        this.digester = b.digest == null ? null : new Digester(b.digest);
        this.digestExecutor = b.digestExecutor;
        this.compressionLevel = b.compressionLevel;
        this.compressor = b.compress ? new Compressor(b.compressionLevel) : null;
        this.encryptor = b.key == null ? null : new Encryptor(b.key, b.provider);
        this.sequence = b.sequence != null ? b.sequence : new NonceSequence();
        this.replayGuard = b.replayGuard;
        this.bodyAlignment = b.bodyAlignment;
    }

    public static Builder builder() {
        return new Builder();
    }

    public long transferId() {
        return transferId;
    }

    public boolean encrypts() {
        return encryptor != null;
    }

    /**
     * Makes the block for {@code data} (its readable bytes; indices unchanged, not released) at
     * {@code fileOffset} of file {@code name}, under the next sequence number.
     *
     * <p>When the block is neither compressed nor encrypted it shares {@code data}'s memory (zero copy):
     * release {@code data} afterwards, do not overwrite it.
     */
    public SealedBlock seal(ByteBuf data, long fileOffset, String name, boolean endOfFile) {
        return seal(data, fileOffset, name, endOfFile, null);
    }

    /**
     * As {@link #seal(ByteBuf, long, String, boolean)}, with the plaintext's digest already known ({@code digest},
     * of this pipeline's algorithm; null: computed here). The caller vouches that it is the digest of exactly
     * {@code data}'s readable bytes.
     */
    public SealedBlock seal(ByteBuf data, long fileOffset, String name, boolean endOfFile, Digest digest) {
        return seal(data, 0, fileOffset, name, endOfFile, digest);
    }

    /**
     * The bytes a caller may leave free before a block's data, in the same buffer, for {@link #seal(ByteBuf, int,
     * long, String, boolean, Digest)} to write the block's descriptor into: the descriptor and the data are then
     * sealed as one plaintext where they lie, instead of being gathered into a copy first (BoringSSL seals a
     * plaintext in one call). The descriptor's length when this pipeline encrypts without compressing, else 0.
     */
    public int roomBefore(String name) {
        return encryptor != null && compressor == null ? BlockDescriptor.encodedLength(name) : 0;
    }

    /**
     * As {@link #seal(ByteBuf, long, String, boolean, Digest)}, where the {@code room} bytes before {@code data}'s
     * reader index are the caller's to give ({@link #roomBefore}; 0: none): they may be overwritten.
     */
    public SealedBlock seal(ByteBuf data, int room, long fileOffset, String name, boolean endOfFile, Digest digest) {
        if (room < 0 || room > data.readerIndex()) {
            throw new IllegalArgumentException("room: " + room + " (expected: 0.." + data.readerIndex()
                    + ", bytes before the reader index)");
        }
        if (digest != null && (digester == null || digest.algorithm() != digester.algorithm())) {
            throw new IllegalArgumentException("digest: " + digest.algorithm() + " (expected: "
                    + (digester == null ? "none" : digester.algorithm()) + ")");
        }
        int n = data.readableBytes();
        if (n > limits.maxDataLength()) {
            throw new BlockTooLongException("data length: " + n + " (expected: <= " + limits.maxDataLength() + ")");
        }
        BlockDescriptor descriptor = new BlockDescriptor(fileOffset, n, name);
        if (descriptor.encodedLength() - BlockDescriptor.FIXED_LENGTH > limits.maxNameLength()) {
            throw new BlockTooLongException("name length: " + (descriptor.encodedLength() - BlockDescriptor.FIXED_LENGTH)
                    + " (expected: <= " + limits.maxNameLength() + ")");
        }
        // The digest only reads the plaintext: with an executor it runs beside compression and encryption.
        boolean hash = digester != null && digest == null;
        CompletableFuture<Digest> overlapped = hash && digestExecutor != null
                ? CompletableFuture.supplyAsync(() -> digester.digest(data), digestExecutor) : null;
        if (hash && overlapped == null) {
            digest = digester.digest(data);
        }
        int flags = BlockFlags.DATA | (endOfFile ? BlockFlags.END_OF_FILE : 0);
        ByteBuf body = null;
        Block block = null;
        try {
            body = compressor == null ? null : compressor.compress(alloc, data);
            if (body != null) {
                flags |= BlockFlags.COMPRESSED;
            }
            long seq = sequence.next();
            block = encryptor != null
                    ? sealEncrypted(flags | BlockFlags.ENCRYPTED, seq, descriptor, body != null ? body : data,
                            body == null ? room : 0)
                    : sealClear(flags, seq, descriptor, body != null ? body.retain() : data.retainedSlice());
            if (overlapped != null) {
                digest = overlapped.join();
            }
            SealedBlock sealed = new SealedBlock(block, digest);
            block = null;
            return sealed;
        } finally {
            if (overlapped != null) {
                overlapped.join(); // never return while another thread still reads the caller's buffer
            }
            if (body != null) {
                body.release();
            }
            if (block != null) {
                block.release();
            }
        }
    }

    /** @param room bytes before {@code body}'s reader index that the descriptor may be written into */
    private Block sealEncrypted(int flags, long seq, BlockDescriptor descriptor, ByteBuf body, int room) {
        int descriptorLength = descriptor.encodedLength();
        int payloadLength = Encryptor.sealedLength(descriptorLength + body.readableBytes());
        BlockHeader header = BlockHeader.data(checksum.algorithm(), new BlockFlags(flags), transferId, seq, payloadLength, null);
        ByteBuf wire = alloc.buffer(header.blockLength());
        boolean inPlace = room >= descriptorLength;
        int plainStart = body.readerIndex() - descriptorLength; // where the descriptor goes when in place
        ByteBuf sealedDescriptor = inPlace
                ? body.slice(plainStart, descriptorLength).writerIndex(0)
                : alloc.heapBuffer(descriptorLength);
        try {
            header.encode(wire);
            descriptor.encode(sealedDescriptor);
            ByteBuf aad = wire.slice(0, BlockHeader.FIXED_LENGTH);
            if (inPlace) {
                encryptor.seal(seq, aad, body.slice(plainStart, descriptorLength + body.readableBytes()),
                        Unpooled.EMPTY_BUFFER, wire);
            } else {
                encryptor.seal(seq, aad, sealedDescriptor, body, wire);
            }
            checksum.append(wire);
            return new Block(header, wire);
        } catch (RuntimeException e) {
            wire.release();
            throw e;
        } finally {
            if (!inPlace) {
                sealedDescriptor.release();
            }
        }
    }

    /** Header, body and checksum as three components: the body is not copied. Takes ownership of body. */
    private Block sealClear(int flags, long seq, BlockDescriptor descriptor, ByteBuf body) {
        BlockHeader header = BlockHeader.data(checksum.algorithm(), new BlockFlags(flags), transferId, seq,
                body.readableBytes(), descriptor);
        CompositeByteBuf wire = alloc.compositeBuffer(3);
        try {
            ByteBuf head = alloc.buffer(header.headerLength());
            header.encode(head);
            wire.addComponent(true, head);
            wire.addComponent(true, body);
            body = null;
            ByteBuf tail = alloc.buffer(checksum.algorithm().length());
            checksum.compute(wire, 0, wire.readableBytes()).writeTo(tail);
            wire.addComponent(true, tail);
            return new Block(header, wire);
        } catch (RuntimeException e) {
            wire.release();
            if (body != null) {
                body.release();
            }
            throw e;
        }
    }

    /**
     * Opens a data block received from a relay or the server. Does not release {@code block}. Throws a
     * {@link BlockFormatException} (checksum, authentication, replay, malformed descriptor or compressed data)
     * or a {@link BlockTooLongException}; the caller then drops the block and fetches it elsewhere.
     */
    public OpenedBlock open(Block block) {
        return open(block, null);
    }

    /**
     * As {@link #open(Block)}, for a block expected to belong to the file {@code expectedName} (null: unknown):
     * with a body alignment, its body is placed for that name's descriptor. Only the placement depends on it;
     * the descriptor inside the block is what counts.
     */
    public OpenedBlock open(Block block, String expectedName) {
        BlockHeader header = block.header();
        String id = header.id();
        if (!block.checksumVerified()) {
            checksum.verify(block);
        }
        BlockFlags flags = header.flags();
        if (!flags.isData()) {
            throw new BlockFormatException(id + ": flags: " + flags + " (expected: DATA)");
        }
        if (header.transferId() != transferId) {
            throw new BlockFormatException(id + ": transfer id: " + Long.toHexString(header.transferId())
                    + " (expected: " + Long.toHexString(transferId) + ")");
        }
        if (flags.isEncrypted() != (encryptor != null)) {
            throw new BlockFormatException(id + ": flags: " + flags + " (expected: "
                    + (encryptor != null ? "ENCRYPTED, this transfer is encrypted" : "not ENCRYPTED, no key for this transfer") + ")");
        }
        BlockDescriptor descriptor;
        ByteBuf body;
        if (encryptor != null) {
            ByteBuf payload = block.payload();
            int min = BlockDescriptor.FIXED_LENGTH + 1 + BlockHeader.TAG_LENGTH;
            if (payload.readableBytes() < min) {
                throw new BlockFormatException(id + ": payload length: " + payload.readableBytes() + " (expected: >= " + min
                        + ", a sealed descriptor and tag)");
            }
            ByteBuf plain = plainBuffer(payload.readableBytes() - BlockHeader.TAG_LENGTH,
                    expectedName == null ? BlockDescriptor.FIXED_LENGTH : BlockDescriptor.encodedLength(expectedName));
            try {
                encryptor.open(header.sequence(), block.headerBytes(), payload, plain, id);
                descriptor = BlockDescriptor.decode(plain, plain.readerIndex(), plain.readableBytes(), limits, id);
                plain.skipBytes(descriptor.encodedLength());
                checkBodyLength(id, flags, plain.readableBytes(), descriptor);
                if (replayGuard != null && !replayGuard.accept(header.sequence())) {
                    throw new ReplayedBlockException(id + ": sequence " + header.sequence()
                            + " already received (expected: each block once)");
                }
            } catch (RuntimeException e) {
                plain.release();
                throw e;
            }
            body = plain;
        } else {
            descriptor = header.descriptor();
            checkBodyLength(id, flags, header.payloadLength(), descriptor);
            body = block.payload().retain();
        }
        ByteBuf data = body;
        try {
            if (flags.isCompressed()) {
                data = compressor().decompress(alloc, body, descriptor.dataLength(), id);
                body.release();
            }
            Digest digest = digester == null ? null : digester.digest(data);
            return new OpenedBlock(header, descriptor, data, digest);
        } catch (RuntimeException e) {
            body.release();
            throw e;
        }
    }

    /**
     * The buffer a sealed block is opened into. With a body alignment, a direct buffer placed so that the body,
     * which follows the descriptor, starts at an aligned address, as {@code O_DIRECT} writes need. The
     * descriptor's length is known only once decrypted, so it comes from the caller's expectation; a wrong one
     * costs nothing but the alignment.
     */
    private ByteBuf plainBuffer(int length, int descriptorLength) {
        if (bodyAlignment == 0) {
            return alloc.buffer(length);
        }
        ByteBuf b = alloc.directBuffer(length + bodyAlignment);
        if (b.hasMemoryAddress()) {
            int pad = (int) Math.floorMod(-(b.memoryAddress() + descriptorLength), (long) bodyAlignment);
            b.setIndex(pad, pad);
        }
        return b;
    }

    private void checkBodyLength(String id, BlockFlags flags, int bodyLength, BlockDescriptor descriptor) {
        if (descriptor.dataLength() > limits.maxDataLength()) {
            throw new BlockTooLongException(id + ": data length: " + descriptor.dataLength()
                    + " (expected: <= " + limits.maxDataLength() + ")");
        }
        boolean ok = flags.isCompressed() ? bodyLength < descriptor.dataLength() : bodyLength == descriptor.dataLength();
        if (!ok) {
            throw new BlockFormatException(id + ": body length: " + bodyLength + " (expected: "
                    + (flags.isCompressed() ? "< " : "") + descriptor.dataLength() + ", the data length)");
        }
    }

    /** A receiver decompresses whatever the sender compressed, even if it compresses nothing itself. */
    private Compressor compressor() {
        if (compressor == null) {
            compressor = new Compressor(compressionLevel);
        }
        return compressor;
    }

    @Override
    public void close() {
        if (compressor != null) {
            compressor.close();
        }
    }

    /**
     * Options with their defaults: Netty's default allocator, CRC32C wire checksum, SHA-256 digest, no
     * compression, no encryption.
     */
    public static final class Builder {
        // The channels' allocator (adaptive in Netty 4.2): the pooled one is no better for block-sized buffers,
        // and a pool with 16 MiB chunks is worse, as one block-sized buffer at a time keeps creating and
        // destroying its chunk.
        private ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
        private BlockLimits limits = BlockLimits.DEFAULT;
        private ChecksumAlgorithm checksum = ChecksumAlgorithm.CRC32C;
        private ChecksumAlgorithm digest = ChecksumAlgorithm.SHA256;
        private boolean compress;
        private int compressionLevel = Compressor.DEFAULT_LEVEL;
        private TransferKey key;
        private Encryptor.Provider provider = Encryptor.Provider.preferred();
        private long transferId;
        private NonceSequence sequence;
        private ReplayGuard replayGuard;
        private Executor digestExecutor;
        private int bodyAlignment;

        public Builder allocator(ByteBufAllocator alloc) {
            this.alloc = Objects.requireNonNull(alloc, "alloc");
            return this;
        }

        public Builder limits(BlockLimits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        public Builder checksum(ChecksumAlgorithm checksum) {
            this.checksum = Objects.requireNonNull(checksum, "checksum");
            return this;
        }

        /** Plaintext digest algorithm, or {@code null} for none (e.g. when the client hashes in its own stage). */
        public Builder digest(ChecksumAlgorithm digest) {
            this.digest = digest;
            return this;
        }

        /**
         * Run the sender's plaintext digest on this executor, beside compression, encryption and checksum
         * (one task per block, joined before {@link #seal} returns). Default: on the calling thread.
         */
        public Builder digestExecutor(Executor executor) {
            this.digestExecutor = executor;
            return this;
        }

        /** Compress each block at this zstd level (kept only where it shrinks the block). */
        public Builder compression(int level) {
            new Compressor(level).close(); // validates the level now, not at the first block
            this.compress = true;
            this.compressionLevel = level;
            return this;
        }

        public Builder noCompression() {
            this.compress = false;
            return this;
        }

        /** Encrypt (and on the receiver: require encryption) under this key; the transfer id is the key's. */
        public Builder encryption(TransferKey key) {
            this.key = Objects.requireNonNull(key, "key");
            return this;
        }

        public Builder encryption(TransferKey key, Encryptor.Provider provider) {
            this.provider = Objects.requireNonNull(provider, "provider");
            return encryption(key);
        }

        /** The transfer id of an unencrypted transfer (an encrypted one takes its key's). */
        public Builder transferId(long transferId) {
            this.transferId = transferId;
            return this;
        }

        /** The sender's sequence numbers; share one per transfer between pipelines. Default: from 0. */
        public Builder sequence(NonceSequence sequence) {
            this.sequence = sequence;
            return this;
        }

        /** Receiver: refuse an authenticated block whose sequence number was already opened. */
        public Builder replayGuard(ReplayGuard replayGuard) {
            this.replayGuard = replayGuard;
            return this;
        }

        /**
         * Receiver: open encrypted blocks into direct buffers whose body starts at a multiple of {@code alignment}
         * (a power of two; 0: any address), so that a writer can hand them to the disk with {@code O_DIRECT}.
         */
        public Builder bodyAlignment(int alignment) {
            if (alignment < 0 || Integer.bitCount(alignment) > 1) {
                throw new IllegalArgumentException("alignment: " + alignment + " (expected: 0 or a power of two)");
            }
            this.bodyAlignment = alignment;
            return this;
        }

        public BlockPipeline build() {
            return new BlockPipeline(this);
        }
    }

}

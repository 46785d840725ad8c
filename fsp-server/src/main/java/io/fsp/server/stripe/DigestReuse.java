package io.fsp.server.stripe;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Digest;
import io.fsp.server.stripe.BlockDigestCache.Stamp;
import io.fsp.server.stripe.StripedTransfer.SourceFile;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.util.Optional;

/**
 * One striping engine's use of the server's {@link BlockDigestCache}, for the blocks of files of at least one block
 * of at least {@link #MIN_BLOCK_SIZE} (a packed block of small files is always hashed, and so is a block that costs
 * less to hash than the two looks at its file). The file's stamp is taken before and after each block is read:
 * a digest kept for that stamp stands for the bytes read only if the stamp held throughout, and the digest made of
 * them is kept only then, and once the file has settled. Used by the engine's thread alone.
 */
final class DigestReuse {
    /** Smaller blocks are hashed: SHA-256 of 64 KiB takes about 40 µs, a look at a file's attributes about 3. */
    static final int MIN_BLOCK_SIZE = 64 * 1024;

    /** A block's plaintext, the digest kept for it (null: hash it), and the stamp to keep its new digest under. */
    record Read(ByteBuf data, Digest kept, Stamp keepAs) {
    }

    private final BlockDigestCache cache;
    private final StripedTransfer transfer;
    private final ChecksumAlgorithm algorithm;
    private final int blockSize;
    private int file = -1;
    /** The stamp of {@link #file} at the last look (null: not the planned file, or gone), and when it was taken. */
    private Stamp stamp;
    private long stampedAt;

    DigestReuse(BlockDigestCache cache, StripedTransfer transfer) {
        this.cache = cache;
        this.transfer = transfer;
        this.algorithm = transfer.options().digest();
        this.blockSize = transfer.plan().blockSize();
    }

    /**
     * Reads {@code block}'s plaintext (a buffer the caller releases) behind {@code room} free bytes
     * ({@link StripedTransfer#read}), with its kept digest where one holds.
     */
    Read read(StripedTransfer.Sources sources, BlockPlan.Block block, int room) throws IOException {
        SourceFile f = transfer.files().get(block.file());
        if (!cache.enabled() || blockSize < MIN_BLOCK_SIZE || f.size() < blockSize) {
            return new Read(transfer.read(sources, block, room), null, null);
        }
        if (block.file() != file) {
            file = block.file();
            look(f);
        }
        Stamp before = stamp;
        long beforeAt = stampedAt;
        long index = block.offset() / blockSize;
        Optional<Digest> kept = before == null ? Optional.empty() : cache.get(before, algorithm, blockSize, index);
        ByteBuf data = transfer.read(sources, block, room);
        look(f);
        if (before == null || !before.equals(stamp)) {
            return new Read(data, null, null); // it changed while it was read: hashed, and nothing kept
        }
        if (kept.isPresent()) {
            cache.reused();
            return new Read(data, kept.get(), null);
        }
        return new Read(data, null, before.settled(beforeAt) ? before : null);
    }

    /** The block of {@code read} was sealed with {@code digest}: kept, if the read allows. */
    void sealed(Read read, BlockPlan.Block block, Digest digest) {
        if (read.keepAs() != null && digest != null) {
            cache.put(read.keepAs(), blockSize, block.offset() / blockSize, digest);
        }
    }

    private void look(SourceFile f) {
        stampedAt = System.currentTimeMillis() * 1_000_000L;
        Optional<Stamp> now = Stamp.of(f.real());
        stamp = now.isPresent() && now.get().fileKey().equals(f.fileKey()) ? now.get() : null;
    }
}

package io.fsp.client.collect;

import io.fsp.block.Block;
import io.fsp.block.BlockDescriptor;
import io.fsp.block.BlockFormatException;
import io.fsp.block.BlockLimits;
import io.fsp.block.Blocks;
import io.fsp.block.stage.BlockPipeline;
import io.fsp.block.stage.OpenedBlock;
import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.crypto.TransferKey;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;

/**
 * Checks and opens a block's wire bytes, whichever source they came from: the wire checksum, the sequence number,
 * AES-GCM (or the transfer id when unencrypted), zstd, and that the block describes the announced place. One
 * pipeline per thread; safe from any thread.
 */
final class BlockOpener {
    /** Where opened block bodies start in memory: a page, enough for O_DIRECT on any common file system. */
    private static final int DIRECT_WRITE_ALIGNMENT = 4096;

    /** The bytes are not the announced block's; the message is the countable cause. */
    static final class DamagedBlockException extends Exception {
        private static final long serialVersionUID = 1L;

        DamagedBlockException(String cause) {
            super(cause, null, false, false);
        }
    }

    private final BlockLimits limits;
    private final ThreadLocal<BlockPipeline> pipelines;

    /**
     * @param key the transfer's key, or null when blocks are not encrypted (then bound to {@code transferId})
     * @param alignBodies whether opened bodies start on a page (for O_DIRECT writes)
     */
    BlockOpener(ChecksumAlgorithm checksum, TransferKey key, TransferId transferId, boolean alignBodies, BlockLimits limits) {
        this.limits = limits;
        this.pipelines = ThreadLocal.withInitial(() -> {
            BlockPipeline.Builder b = BlockPipeline.builder().checksum(checksum).digest(null).limits(limits);
            if (alignBodies) {
                b.bodyAlignment(DIRECT_WRITE_ALIGNMENT);
            }
            if (key != null) {
                b.encryption(key);
            } else {
                b.transferId(transferId.value());
            }
            return b.build();
        });
    }

    /**
     * Opens {@code wire} (released here, whatever happens) as block {@code a} of the file named {@code fileName}.
     *
     * @return the plaintext, which the caller releases
     */
    OpenedBlock open(ByteBuf wire, AnnouncedBlock a, String fileName) throws DamagedBlockException {
        OpenedBlock opened;
        try {
            Block block = Blocks.parse(wire, limits);
            try {
                if (block.header().sequence() != a.seq()) {
                    throw new BlockFormatException("sequence " + block.header().sequence() + " (expected: " + a.seq() + ")");
                }
                opened = pipelines.get().open(block, fileName);
            } finally {
                block.release();
            }
        } catch (RuntimeException e) {
            throw new DamagedBlockException(TransferStatistics.describe(e));
        } finally {
            wire.release();
        }
        BlockDescriptor d = opened.descriptor();
        if (!d.name().equals(fileName) || d.fileOffset() != a.offset() || d.dataLength() != a.length()) {
            opened.release();
            throw new DamagedBlockException("block describes " + d.name() + " @" + d.fileOffset() + "+" + d.dataLength()
                    + " (expected: the announced place)");
        }
        return opened;
    }
}

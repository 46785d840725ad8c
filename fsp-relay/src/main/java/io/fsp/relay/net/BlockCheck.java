package io.fsp.relay.net;

import io.fsp.block.Block;
import io.fsp.block.BlockHeader;
import io.fsp.block.BlockLimits;
import io.fsp.block.Blocks;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.DecoderException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/**
 * Checks a pushed block before the relay stores it: a well-formed, encrypted data block (docs/protocol.md §2)
 * whose wire checksum matches and whose header names the transfer and sequence number of the PUT_BLOCK frame.
 * Needs no key: the header and checksum are in the clear. The hashing runs on its own executor, not on
 * the event loop.
 */
public final class BlockCheck {
    /** Stores whatever bytes arrive (for peers that do not send FSP blocks, and for tests). */
    public static final BlockCheck NONE = new BlockCheck(null, null, true);

    private final BlockLimits limits;
    private final Executor executor;
    private final boolean acceptClear;

    private BlockCheck(BlockLimits limits, Executor executor, boolean acceptClear) {
        this.limits = limits;
        this.executor = executor;
        this.acceptClear = acceptClear;
    }

    /** @param acceptClear whether blocks without encryption may be stored (relay option --accept-clear-blocks) */
    public static BlockCheck of(int maxBlockBytes, Executor executor, boolean acceptClear) {
        return new BlockCheck(new BlockLimits(Math.min(maxBlockBytes, BlockLimits.MAX_DATA_LENGTH),
                BlockLimits.DEFAULT.maxNameLength()), executor, acceptClear);
    }

    /** Completes when {@code bytes} passed; fails with a {@link BadBlockException}. Does not release. */
    public CompletableFuture<Void> verify(TransferId transfer, long seq, ByteBuf bytes) {
        if (limits == null) {
            return CompletableFuture.completedFuture(null);
        }
        return CompletableFuture.runAsync(() -> {
            try {
                check(transfer, seq, bytes);
            } catch (BadBlockException e) {
                throw new CompletionException(e);
            }
        }, executor);
    }

    void check(TransferId transfer, long seq, ByteBuf bytes) throws BadBlockException {
        Block block;
        try {
            block = Blocks.parse(bytes, limits);
        } catch (DecoderException | IllegalArgumentException e) {
            throw new BadBlockException("block " + seq + ": " + e.getMessage());
        }
        try {
            BlockHeader h = block.header();
            if (!h.flags().isData()) {
                throw new BadBlockException("block " + seq + ": flags " + h.flags()
                        + " (expected: a DATA block)");
            }
            if (!acceptClear && !h.flags().isEncrypted()) {
                throw new BadBlockException("block " + seq + ": not encrypted (expected:"
                        + " ENCRYPTED; this relay holds no plaintext unless started with --accept-clear-blocks)");
            }
            if (h.transferId() != transfer.value()) {
                throw new BadBlockException("block " + seq + ": transfer "
                        + new TransferId(h.transferId()) + " in its header (expected: " + transfer + ")");
            }
            if (h.sequence() != seq) {
                throw new BadBlockException("block " + seq + ": sequence " + h.sequence()
                        + " in its header (expected: " + seq + ")");
            }
        } finally {
            block.release();
        }
    }
}

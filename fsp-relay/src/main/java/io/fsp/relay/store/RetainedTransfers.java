package io.fsp.relay.store;

import io.fsp.block.BlockDecoder;
import io.fsp.block.BlockDescriptor;
import io.fsp.block.BlockHeader;
import io.fsp.block.BlockLimits;
import io.fsp.token.TransferId;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.DecoderException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retained transfers on disk, across restarts: a transfer's metadata ({@link RetainedTransfer}) is written before
 * it opens and deleted for good when it ends, and at start the transfers an earlier run left are read back with
 * their sound blocks, while everything else that run left is deleted. Blocking file work: the store calls it on
 * its disk executor, or at start.
 */
final class RetainedTransfers {
    private static final Logger log = LoggerFactory.getLogger(RetainedTransfers.class);
    /** Restored block files are checked against their header; the reservation bounds their size. */
    private static final BlockLimits RESTORE_LIMITS = new BlockLimits(BlockLimits.MAX_DATA_LENGTH,
            BlockDescriptor.MAX_NAME_LENGTH);

    /** A retained transfer an earlier run left, whose expiry lies ahead, with its sound blocks (at least one). */
    record Restored(RetainedTransfer transfer, List<Block> blocks) {
        Restored {
            blocks = List.copyOf(blocks);
        }

        long bytes() {
            return blocks.stream().mapToLong(Block::size).sum();
        }
    }

    /** A sound block file of a restored transfer. */
    record Block(long seq, Path file, int size) {
    }

    private final SpillFiles files;

    RetainedTransfers(SpillFiles files) {
        this.files = files;
    }

    /** Writes {@code r}'s metadata beside its blocks and forces it to disk. */
    void keep(RetainedTransfer r) throws IOException {
        r.write(files.transferDir(r.id()));
    }

    /** Deletes a retained transfer's metadata, for good: an aborted transfer must not come back at the next start. */
    void forget(TransferId id) {
        Path file = files.transferDir(id).resolve(RetainedTransfer.FILE_NAME);
        try {
            Files.deleteIfExists(file);
            RetainedTransfer.forceDirectory(file.getParent());
        } catch (NoSuchFileException e) {
            // its directory was never made: nothing to forget
        } catch (IOException e) {
            log.warn("cannot delete {}: {}", file, e.toString());
        }
        SpillFiles.deleteQuietly(file); // and the directory if nothing else is in it
    }

    /**
     * Hands {@code restored} each retained transfer an earlier run left whose metadata is sound and whose expiry
     * lies after {@code now}, with its sound blocks, in the order of their directories; deletes everything else
     * that run left (blocks of transfers that were not retained, expired or unreadable transfers, damaged blocks,
     * blocks beyond a transfer's reservation), one log line each. Files the store never writes are left alone.
     */
    void restore(Instant now, Consumer<Restored> restored) throws IOException {
        for (Path dir : files.transferDirs()) {
            RetainedTransfer kept;
            try {
                kept = retained(dir, now);
            } catch (IOException e) {
                log.info("deleting transfer {} left by an earlier run: {}", dir.getFileName(), e.getMessage());
                SpillFiles.deleteLeftovers(dir);
                continue;
            }
            List<Block> blocks = soundBlocks(dir, kept);
            if (blocks.isEmpty()) {
                log.info("deleting retained transfer {} left by an earlier run: it holds no block", kept.id());
                SpillFiles.deleteLeftovers(dir);
                continue;
            }
            restored.accept(new Restored(kept, blocks));
        }
    }

    /** The sound metadata of a retained transfer whose expiry lies ahead; else says why not. */
    private static RetainedTransfer retained(Path dir, Instant now) throws IOException {
        Path file = dir.resolve(RetainedTransfer.FILE_NAME);
        if (!Files.exists(file)) {
            throw new IOException("not retained");
        }
        RetainedTransfer r = RetainedTransfer.read(file);
        if (!r.id().toString().equals(dir.getFileName().toString())) {
            throw new IOException(file + ": transfer " + r.id() + " (expected: " + dir.getFileName()
                    + ", its directory)");
        }
        if (!now.isBefore(r.expiresAt())) {
            throw new IOException("expired at " + r.expiresAt());
        }
        return r;
    }

    /** The sound blocks of {@code r} in {@code dir}, within its reservation; deletes the others. */
    private static List<Block> soundBlocks(Path dir, RetainedTransfer r) throws IOException {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            s.forEach(found::add);
        }
        found.sort(null);
        List<Block> blocks = new ArrayList<>();
        long held = 0;
        for (Path f : found) {
            String name = f.getFileName().toString();
            if (name.equals(RetainedTransfer.FILE_NAME) || !SpillFiles.isOwnFile(name)) {
                continue;
            }
            String seq = SpillFiles.blockSeq(name);
            if (seq == null) {
                Files.deleteIfExists(f); // the metadata's temporary file, from a crash while it was written
                continue;
            }
            long size = Files.size(f);
            String problem = blockProblem(f, r.id(), seq, size);
            if (problem == null && held + size > r.reservation()) {
                problem = "beyond the " + r.reservation() + " bytes reserved for the transfer";
            }
            if (problem != null) {
                log.info("deleting {} of retained transfer {}: {}", name, r.id(), problem);
                Files.deleteIfExists(f);
                continue;
            }
            blocks.add(new Block(Long.parseLong(seq), f, (int) size));
            held += size;
        }
        return blocks;
    }

    /**
     * Why the file of block {@code seq} of {@code id} cannot be served: its header (docs/protocol.md §2) must name
     * the transfer and block, and the block's length must be the file's. Null if it is sound.
     */
    private static String blockProblem(Path file, TransferId id, String seq, long size) throws IOException {
        if (size < BlockHeader.FIXED_LENGTH || size > Integer.MAX_VALUE) {
            return "size " + size + " bytes (expected: a block)";
        }
        byte[] header;
        try (InputStream in = Files.newInputStream(file)) {
            header = in.readNBytes(BlockHeader.FIXED_LENGTH);
        }
        BlockDecoder.Frame frame;
        try {
            frame = BlockDecoder.readFrame(Unpooled.wrappedBuffer(header), 0, header.length, RESTORE_LIMITS);
        } catch (DecoderException | IllegalArgumentException e) {
            return "not a block: " + e.getMessage();
        }
        if (frame == null) {
            return "size " + size + " bytes (expected: a block)";
        }
        if (frame.transferId() != id.value() || !Long.toString(frame.sequence()).equals(seq)) {
            return "its header names " + BlockHeader.id(frame.transferId(), frame.sequence());
        }
        if (frame.blockLength() != size) {
            return "size " + size + " bytes (expected: " + frame.blockLength() + ", as its header says)";
        }
        return null;
    }
}

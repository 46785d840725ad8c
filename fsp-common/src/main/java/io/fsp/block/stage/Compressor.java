package io.fsp.block.stage;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import io.fsp.block.BlockFormatException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;

/**
 * Per-block zstd compression (paper 004 §3.3 used zlib; zstd is faster at a better ratio). A block is sent
 * compressed only if that makes it shorter, so incompressible data costs one attempt and no extra bytes.
 * Holds native contexts: not thread-safe, {@link #close()} when done.
 */
public final class Compressor implements AutoCloseable {
    /** zstd's own default; level 1 or negative levels trade ratio for speed. */
    public static final int DEFAULT_LEVEL = 3;

    private final int level;
    private final ZstdCompressCtx compressor = new ZstdCompressCtx();
    private final ZstdDecompressCtx decompressor = new ZstdDecompressCtx();

    public Compressor(int level) {
        if (level < Zstd.minCompressionLevel() || level > Zstd.maxCompressionLevel()) {
            throw new IllegalArgumentException("compression level: " + level + " (expected: "
                    + Zstd.minCompressionLevel() + ".." + Zstd.maxCompressionLevel() + ")");
        }
        this.level = level;
        compressor.setLevel(level);
        // The descriptor carries the data length and the wire checksum covers the frame: both frame fields are waste.
        compressor.setChecksum(false);
        compressor.setContentSize(false);
    }

    public int level() {
        return level;
    }

    /**
     * Compresses the readable bytes of {@code data} (indices unchanged) into a new buffer, or returns
     * {@code null} if the result would not be shorter than the input.
     */
    public ByteBuf compress(ByteBufAllocator alloc, ByteBuf data) {
        int n = data.readableBytes();
        if (n < 2) {
            return null;
        }
        ByteBuf flat = flat(alloc, data);
        ByteBuf out = flat.hasArray() ? alloc.heapBuffer(n - 1) : alloc.directBuffer(n - 1);
        try {
            int written;
            if (flat.hasArray()) {
                written = compressor.compressByteArray(out.array(), out.arrayOffset(), n - 1,
                        flat.array(), flat.arrayOffset() + flat.readerIndex(), n);
            } else {
                ByteBuffer dst = out.nioBuffer(0, n - 1);
                ByteBuffer src = flat.nioBuffer(flat.readerIndex(), n);
                written = compressor.compressDirectByteBuffer(dst, dst.position(), n - 1, src, src.position(), n);
            }
            if (Zstd.isError(written) || written >= n) {
                out.release();
                return null;
            }
            out.writerIndex(written);
            return out;
        } catch (ZstdException e) {
            // Too small an output buffer is zstd's way of saying "does not shrink".
            out.release();
            if (e.getErrorCode() == Zstd.errDstSizeTooSmall()) {
                return null;
            }
            throw e;
        } finally {
            if (flat != data) {
                flat.release();
            }
        }
    }

    /**
     * Decompresses the readable bytes of {@code compressed} into a new buffer of exactly {@code dataLength}
     * bytes, which the caller has checked against its limits. Anything else is a {@link BlockFormatException}.
     *
     * @param block the block's name for error messages
     */
    public ByteBuf decompress(ByteBufAllocator alloc, ByteBuf compressed, int dataLength, String block) {
        ByteBuf flat = flat(alloc, compressed);
        ByteBuf out = flat.hasArray() ? alloc.heapBuffer(dataLength) : alloc.directBuffer(dataLength);
        boolean ok = false;
        try {
            int n = flat.readableBytes();
            long written;
            if (flat.hasArray()) {
                written = decompressor.decompressByteArray(out.array(), out.arrayOffset(), dataLength,
                        flat.array(), flat.arrayOffset() + flat.readerIndex(), n);
            } else {
                ByteBuffer dst = out.nioBuffer(0, dataLength);
                ByteBuffer src = flat.nioBuffer(flat.readerIndex(), n);
                written = decompressor.decompressDirectByteBuffer(dst, dst.position(), dataLength, src, src.position(), n);
            }
            if (Zstd.isError(written)) {
                throw new BlockFormatException(block + ": zstd: " + Zstd.getErrorName(written));
            }
            if (written != dataLength) {
                throw new BlockFormatException(block + ": decompressed length: " + written + " (expected: " + dataLength + ")");
            }
            out.writerIndex(dataLength);
            ok = true;
            return out;
        } catch (ZstdException e) {
            throw new BlockFormatException(block + ": zstd: " + e.getMessage()
                    + (e.getErrorCode() == Zstd.errDstSizeTooSmall() ? " (expected: at most " + dataLength + " bytes)" : ""), e);
        } finally {
            if (!ok) {
                out.release();
            }
            if (flat != compressed) {
                flat.release();
            }
        }
    }

    /** zstd reads one contiguous region: composite buffers are copied once into a direct buffer. */
    private static ByteBuf flat(ByteBufAllocator alloc, ByteBuf buf) {
        if (buf.hasArray() || (buf.isDirect() && buf.nioBufferCount() == 1)) {
            return buf;
        }
        ByteBuf copy = alloc.directBuffer(buf.readableBytes());
        copy.writeBytes(buf, buf.readerIndex(), buf.readableBytes());
        return copy;
    }

    @Override
    public void close() {
        compressor.close();
        decompressor.close();
    }
}

package io.fsp.block.bench;

import io.fsp.block.Block;
import io.fsp.block.BlockHeader;
import io.fsp.block.TestData;
import io.fsp.block.stage.BlockPipeline;
import io.fsp.block.stage.Compressor;
import io.fsp.block.stage.Encryptor;
import io.fsp.block.stage.SealedBlock;
import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Digest;
import io.fsp.checksum.Hasher;
import io.fsp.crypto.TransferKey;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Throughput of each block stage and of the whole pipeline, one thread, on 4 MiB blocks of random and of
 * text-like data in pooled direct buffers (what the codec uses). One operation is one block; run it with
 * {@code bin/bench-blocks}, which prints MB/s per core.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-Dio.netty.leakDetection.level=disabled"})
public class BlockBenchmark {
    public static final int BLOCK = 4 * 1024 * 1024;
    private static final PooledByteBufAllocator ALLOC = PooledByteBufAllocator.DEFAULT;

    /** The plaintext block. */
    @State(Scope.Thread)
    public static class Data {
        @Param({"random", "text"})
        public String data;
        ByteBuf plain;

        @Setup
        public void setUp() {
            byte[] b = data.equals("random") ? TestData.random(BLOCK, 1) : TestData.text(BLOCK, 1);
            plain = ALLOC.directBuffer(BLOCK).writeBytes(b);
        }

        @TearDown
        public void tearDown() {
            plain.release();
        }
    }

    @State(Scope.Thread)
    public static class Hashing {
        @Param({"CRC32C", "ADLER32", "CRC32", "MD5", "SHA1", "SHA256", "BLAKE3"})
        public ChecksumAlgorithm algorithm;
        Hasher hasher;

        @Setup
        public void setUp() {
            hasher = algorithm.newHasher();
        }
    }

    @State(Scope.Thread)
    public static class Zstd {
        @Param({"1", "3"})
        public int level;
        Compressor compressor;
        ByteBuf compressed;

        @Setup
        public void setUp(Data d) {
            compressor = new Compressor(level);
            compressed = compressor.compress(ALLOC, d.plain);
        }

        @TearDown
        public void tearDown() {
            if (compressed != null) {
                compressed.release();
            }
            compressor.close();
        }
    }

    @State(Scope.Thread)
    public static class Gcm {
        @Param({"JDK", "BOUNCY_CASTLE"})
        public Encryptor.Provider provider;
        @Param({"128", "256"})
        public int bits;
        Encryptor encryptor;
        ByteBuf aad;
        ByteBuf out;
        ByteBuf sealed;
        ByteBuf opened;
        long sequence;

        @Setup
        public void setUp(Data d) {
            encryptor = new Encryptor(TransferKey.of(7, TestData.random(bits / 8, 3)), provider);
            aad = ALLOC.directBuffer(BlockHeader.FIXED_LENGTH).writeZero(BlockHeader.FIXED_LENGTH);
            out = ALLOC.directBuffer(BLOCK + BlockHeader.TAG_LENGTH);
            sealed = ALLOC.directBuffer(BLOCK + BlockHeader.TAG_LENGTH);
            opened = ALLOC.directBuffer(BLOCK);
            encryptor.seal(0, aad, Unpooled.EMPTY_BUFFER, d.plain, sealed);
            sequence = 1;
        }

        @TearDown
        public void tearDown() {
            aad.release();
            out.release();
            sealed.release();
            opened.release();
        }
    }

    /** The pipeline as a transfer uses it: SHA-256 digest, optional zstd, AES-128-GCM (default provider), CRC32C. */
    @State(Scope.Thread)
    public static class Pipeline {
        @Param({"off", "1"})
        public String zstd;
        BlockPipeline sender;
        BlockPipeline receiver;
        Block wire;

        @Setup
        public void setUp(Data d) {
            TransferKey key = TransferKey.of(9, TestData.random(16, 4));
            BlockPipeline.Builder b = BlockPipeline.builder().encryption(key).digest(ChecksumAlgorithm.SHA256)
                    .checksum(ChecksumAlgorithm.CRC32C);
            if (!zstd.equals("off")) {
                b.compression(Integer.parseInt(zstd));
            }
            sender = b.build();
            receiver = BlockPipeline.builder().encryption(key).digest(ChecksumAlgorithm.SHA256).build();
            SealedBlock s = sender.seal(d.plain, 0, "data/file.bin", false);
            wire = s.block();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            wire.release();
            sender.close();
            receiver.close();
        }
    }

    @Benchmark
    public Digest hash(Data d, Hashing h) {
        h.hasher.reset();
        return h.hasher.update(d.plain).finish();
    }

    @Benchmark
    public int zstdCompress(Data d, Zstd z) {
        ByteBuf c = z.compressor.compress(ALLOC, d.plain);
        if (c == null) {
            return 0;
        }
        int n = c.readableBytes();
        c.release();
        return n;
    }

    /** Only meaningful for compressible data; random data is never sent compressed. */
    @Benchmark
    public int zstdDecompress(Data d, Zstd z) {
        if (z.compressed == null) {
            return 0;
        }
        ByteBuf p = z.compressor.decompress(ALLOC, z.compressed.duplicate(), BLOCK, "bench");
        int n = p.readableBytes();
        p.release();
        return n;
    }

    @Benchmark
    public int gcmSeal(Data d, Gcm g) {
        g.out.clear();
        g.encryptor.seal(g.sequence++, g.aad, Unpooled.EMPTY_BUFFER, d.plain, g.out);
        return g.out.readableBytes();
    }

    @Benchmark
    public int gcmOpen(Gcm g) {
        g.opened.clear();
        g.encryptor.open(0, g.aad, g.sealed, g.opened, "bench");
        return g.opened.readableBytes();
    }

    @Benchmark
    public int pipelineSeal(Data d, Pipeline p) {
        SealedBlock s = p.sender.seal(d.plain, 0, "data/file.bin", false);
        int n = s.block().content().readableBytes();
        s.block().release();
        return n;
    }

    @Benchmark
    public int pipelineOpen(Pipeline p) {
        // A fresh, unverified view of the same wire bytes, so open() also checks the CRC32C.
        Block b = new Block(p.wire.header(), p.wire.content().retainedDuplicate());
        var opened = p.receiver.open(b);
        int n = opened.content().readableBytes();
        opened.release();
        b.release();
        return n;
    }
}

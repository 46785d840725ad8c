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
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * text-like data in direct buffers from Netty's default allocator (what the codec uses). One operation is one block; run it with
 * {@code bin/bench-blocks}, which prints MB/s per core.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-Dio.netty.leakDetection.level=disabled"})
public class BlockBenchmark {
    public static final int BLOCK = 4 * 1024 * 1024;
    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /**
     * CPU time next to wall time: on a shared machine a thread may wait for a core, so MB per CPU-second
     * ("per core") is the figure that does not depend on what else runs. Includes a side digest thread's time.
     */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class Cpu {
        public long cpuNanos;
        public long blocks;
        long started;

        @Setup(Level.Iteration)
        public void reset() {
            cpuNanos = 0;
            blocks = 0;
        }

        void start() {
            started = THREADS.getCurrentThreadCpuTime();
        }

        void stop(long elsewhere) {
            cpuNanos += THREADS.getCurrentThreadCpuTime() - started + elsewhere;
            blocks++;
        }
    }

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

    /**
     * The pipeline as a transfer uses it: SHA-256 digest, optional zstd level 1, AES-128-GCM (default provider),
     * CRC32C. {@code digest=beside}: the sender digests on a second thread; the receiver leaves the digest to
     * the client's hashing stage, which runs beside the disk write.
     */
    @State(Scope.Thread)
    public static class Pipeline {
        @Param({"off", "1"})
        public String zstd;
        @Param({"inline", "beside"})
        public String digest;
        /** {@code default}: Netty's default allocator (adaptive in 4.2); {@code pooled}: PooledByteBufAllocator. */
        @Param({"default"})
        public String alloc;
        ExecutorService digestThread;
        final AtomicLong digestNanos = new AtomicLong();
        BlockPipeline sender;
        BlockPipeline receiver;
        Block wire;

        @Setup
        public void setUp(Data d) {
            TransferKey key = TransferKey.of(9, TestData.random(16, 4));
            ByteBufAllocator allocator = alloc.equals("pooled") ? PooledByteBufAllocator.DEFAULT : ByteBufAllocator.DEFAULT;
            BlockPipeline.Builder b = BlockPipeline.builder().allocator(allocator).encryption(key)
                    .digest(ChecksumAlgorithm.SHA256).checksum(ChecksumAlgorithm.CRC32C);
            if (!zstd.equals("off")) {
                b.compression(Integer.parseInt(zstd));
            }
            boolean beside = digest.equals("beside");
            if (beside) {
                digestThread = Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r, "digest");
                    t.setDaemon(true);
                    return t;
                });
                b.digestExecutor(task -> digestThread.execute(() -> {
                    long t0 = THREADS.getCurrentThreadCpuTime();
                    task.run();
                    digestNanos.addAndGet(THREADS.getCurrentThreadCpuTime() - t0);
                }));
            }
            sender = b.build();
            receiver = BlockPipeline.builder().allocator(allocator).encryption(key)
                    .digest(beside ? null : ChecksumAlgorithm.SHA256).build();
            SealedBlock s = sender.seal(d.plain, 0, "data/file.bin", false);
            wire = s.block();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            wire.release();
            sender.close();
            receiver.close();
            if (digestThread != null) {
                digestThread.shutdownNow();
            }
        }
    }

    @Benchmark
    public Digest hash(Data d, Hashing h, Cpu cpu) {
        cpu.start();
        h.hasher.reset();
        Digest digest = h.hasher.update(d.plain).finish();
        cpu.stop(0);
        return digest;
    }

    @Benchmark
    public int zstdCompress(Data d, Zstd z, Cpu cpu) {
        cpu.start();
        ByteBuf c = z.compressor.compress(ALLOC, d.plain);
        int n = 0;
        if (c != null) {
            n = c.readableBytes();
            c.release();
        }
        cpu.stop(0);
        return n;
    }

    /** Only meaningful for compressible data; random data is never sent compressed. */
    @Benchmark
    public int zstdDecompress(Data d, Zstd z, Cpu cpu) {
        if (z.compressed == null) {
            return 0;
        }
        cpu.start();
        ByteBuf p = z.compressor.decompress(ALLOC, z.compressed.duplicate(), BLOCK, "bench");
        int n = p.readableBytes();
        p.release();
        cpu.stop(0);
        return n;
    }

    @Benchmark
    public int gcmSeal(Data d, Gcm g, Cpu cpu) {
        cpu.start();
        g.out.clear();
        g.encryptor.seal(g.sequence++, g.aad, Unpooled.EMPTY_BUFFER, d.plain, g.out);
        cpu.stop(0);
        return g.out.readableBytes();
    }

    @Benchmark
    public int gcmOpen(Gcm g, Cpu cpu) {
        cpu.start();
        g.opened.clear();
        g.encryptor.open(0, g.aad, g.sealed, g.opened, "bench");
        cpu.stop(0);
        return g.opened.readableBytes();
    }

    @Benchmark
    public int pipelineSeal(Data d, Pipeline p, Cpu cpu) {
        cpu.start();
        SealedBlock s = p.sender.seal(d.plain, 0, "data/file.bin", false);
        int n = s.block().content().readableBytes();
        s.block().release();
        cpu.stop(p.digestNanos.getAndSet(0));
        return n;
    }

    @Benchmark
    public int pipelineOpen(Pipeline p, Cpu cpu) {
        cpu.start();
        // A fresh, unverified view of the same wire bytes, so open() also checks the CRC32C.
        Block b = new Block(p.wire.header(), p.wire.content().retainedDuplicate());
        var opened = p.receiver.open(b);
        int n = opened.content().readableBytes();
        opened.release();
        b.release();
        cpu.stop(0);
        return n;
    }
}

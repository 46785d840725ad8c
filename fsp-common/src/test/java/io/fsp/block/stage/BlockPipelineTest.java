package io.fsp.block.stage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.fsp.block.Block;
import io.fsp.block.BlockAuthenticationException;
import io.fsp.block.BlockChecksumException;
import io.fsp.block.BlockDecoder;
import io.fsp.block.BlockDescriptor;
import io.fsp.block.BlockFlags;
import io.fsp.block.BlockFormatException;
import io.fsp.block.BlockHeader;
import io.fsp.block.BlockLimits;
import io.fsp.block.BlockTooLongException;
import io.fsp.block.Blocks;
import io.fsp.block.ReplayedBlockException;
import io.fsp.block.TestData;
import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Digest;
import io.fsp.crypto.NonceSequence;
import io.fsp.crypto.ReplayGuard;
import io.fsp.crypto.TransferKey;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class BlockPipelineTest {
    private static final int BLOCK_SIZE = 4096;
    private static final long TRANSFER = 0x5eed_f00d_1234_5678L;
    private static final byte[] KEY128 = TestData.random(16, 1);
    private static final byte[] KEY256 = TestData.random(32, 2);

    /** No key, AES-128 and AES-256 with each provider. */
    enum Cipher {
        NONE(null, null), AES128_JDK(KEY128, Encryptor.Provider.JDK), AES256_JDK(KEY256, Encryptor.Provider.JDK),
        AES128_BC(KEY128, Encryptor.Provider.BOUNCY_CASTLE), AES256_BC(KEY256, Encryptor.Provider.BOUNCY_CASTLE);

        final byte[] key;
        final Encryptor.Provider provider;

        Cipher(byte[] key, Encryptor.Provider provider) {
            this.key = key;
            this.provider = provider;
        }

        BlockPipeline.Builder apply(BlockPipeline.Builder b) {
            return key == null ? b.transferId(TRANSFER) : b.encryption(TransferKey.of(TRANSFER, key), provider);
        }
    }

    static Stream<Arguments> everyCombination() {
        List<Arguments> all = new ArrayList<>();
        for (ChecksumAlgorithm checksum : ChecksumAlgorithm.values()) {
            for (Cipher cipher : Cipher.values()) {
                for (boolean compress : new boolean[] {false, true}) {
                    all.add(Arguments.of(checksum, cipher, compress));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1} compress={2}")
    @MethodSource("everyCombination")
    void roundTripsEverySizeThroughTheDecoder(ChecksumAlgorithm checksum, Cipher cipher, boolean compress) {
        int[] sizes = {0, 1, BLOCK_SIZE - 1, BLOCK_SIZE, BLOCK_SIZE + 1};
        ChecksumAlgorithm digest = ChecksumAlgorithm.values()[(checksum.ordinal() + 3) % ChecksumAlgorithm.values().length];
        try (BlockPipeline sender = pipeline(cipher, checksum, digest, compress);
             BlockPipeline receiver = pipeline(cipher, checksum, digest, false)) {
            long seed = 0;
            for (int size : sizes) {
                for (boolean text : new boolean[] {false, true}) {
                    byte[] data = text ? TestData.text(size, ++seed) : TestData.random(size, ++seed);
                    roundTrip(sender, receiver, data, size % 2 == 1, compress && text && size > 64);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Cipher.class)
    void roundTripsLargeBlocks(Cipher cipher) {
        try (BlockPipeline sender = pipeline(cipher, ChecksumAlgorithm.CRC32C, ChecksumAlgorithm.SHA256, true);
             BlockPipeline receiver = pipeline(cipher, ChecksumAlgorithm.CRC32C, ChecksumAlgorithm.SHA256, true)) {
            int large = 4 * 1024 * 1024 + 1;
            roundTrip(sender, receiver, TestData.text(large, 5), true, true);
            roundTrip(sender, receiver, TestData.random(large, 6), false, false);
        }
    }

    @Test
    void heapBuffersWorkLikeDirectOnes() {
        BlockPipeline.Builder b = BlockPipeline.builder().allocator(UnpooledByteBufAllocator.DEFAULT).compression(1);
        try (BlockPipeline sender = Cipher.AES128_JDK.apply(b).build();
             BlockPipeline receiver = Cipher.AES128_JDK.apply(BlockPipeline.builder().allocator(UnpooledByteBufAllocator.DEFAULT)).build()) {
            roundTrip(sender, receiver, TestData.text(10_000, 3), false, true);
        }
        try (BlockPipeline p = Cipher.NONE.apply(BlockPipeline.builder().allocator(UnpooledByteBufAllocator.DEFAULT)).compression(1).build()) {
            roundTrip(p, p, TestData.text(10_000, 3), false, true);
        }
    }

    private static BlockPipeline pipeline(Cipher cipher, ChecksumAlgorithm checksum, ChecksumAlgorithm digest, boolean compress) {
        BlockPipeline.Builder b = BlockPipeline.builder().checksum(checksum).digest(digest);
        if (compress) {
            b.compression(1);
        }
        return cipher.apply(b).build();
    }

    /** Seals, sends the wire bytes through a decoder in random chunks, opens, and compares everything. */
    private static void roundTrip(BlockPipeline sender, BlockPipeline receiver, byte[] data, boolean eof, boolean expectCompressed) {
        ByteBuf in = Unpooled.directBuffer(data.length).writeBytes(data);
        SealedBlock sealed = sender.seal(in, 1_000_000L + data.length, "dir/file-" + data.length + ".bin", eof);
        in.release();
        Block block = sealed.block();
        BlockFlags flags = block.header().flags();
        assertEquals(eof, flags.isEndOfFile());
        assertEquals(sender.encrypts(), flags.isEncrypted());
        assertEquals(expectCompressed, flags.isCompressed(), "text compresses, random data is sent as it is: " + flags);
        byte[] wire = ByteBufUtil.getBytes(block.content());
        block.release();

        EmbeddedChannel ch = new EmbeddedChannel(new BlockDecoder(BlockLimits.DEFAULT));
        Random r = new Random(data.length);
        for (int i = 0; i < wire.length; ) {
            int n = Math.min(wire.length - i, 1 + r.nextInt(Math.max(1, wire.length / 3)));
            ch.writeInbound(Unpooled.wrappedBuffer(wire, i, n));
            i += n;
        }
        Block received = ch.readInbound();
        assertFalse(ch.finish());
        OpenedBlock opened = receiver.open(received);
        try {
            assertArrayEquals(data, ByteBufUtil.getBytes(opened.content()));
            assertEquals(new BlockDescriptor(1_000_000L + data.length, data.length, "dir/file-" + data.length + ".bin"),
                    opened.descriptor());
            Digest expected = sealed.digest().algorithm().newHasher().update(data).finish();
            assertEquals(expected, sealed.digest());
            assertEquals(expected, opened.digest());
        } finally {
            opened.release();
            received.release();
        }
        assertEquals(0, opened.refCnt(), "the opened data is freed");
        assertEquals(0, received.refCnt(), "the received block is freed: open() keeps no reference");
    }

    @Test
    void aDigestOnAnotherThreadGivesTheSameBlockAndDigest() throws Exception {
        java.util.concurrent.ExecutorService digestThread = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (BlockPipeline overlapped = Cipher.AES128_JDK.apply(BlockPipeline.builder().compression(1).digestExecutor(digestThread)).build();
             BlockPipeline receiver = pipeline(Cipher.AES128_JDK, ChecksumAlgorithm.CRC32C, ChecksumAlgorithm.SHA256, false)) {
            for (int i = 0; i < 5; i++) {
                roundTrip(overlapped, receiver, TestData.text(100_000 + i, i), i == 4, true);
            }
        } finally {
            digestThread.shutdown();
        }
    }

    @Test
    void aDigestGivenIsSealedWithTheBlockInsteadOfOneMadeHere() {
        ByteBuf data = Unpooled.wrappedBuffer(TestData.random(100_000, 3));
        try (BlockPipeline hashing = pipeline(Cipher.AES128_JDK, ChecksumAlgorithm.CRC32C, ChecksumAlgorithm.SHA256, false);
             BlockPipeline given = pipeline(Cipher.AES128_JDK, ChecksumAlgorithm.CRC32C, ChecksumAlgorithm.SHA256, false)) {
            SealedBlock made = hashing.seal(data, 0, "f", true);
            SealedBlock taken = given.seal(data, 0, "f", true, made.digest());
            assertEquals(made.digest(), taken.digest());
            assertTrue(ByteBufUtil.equals(made.block().content(), taken.block().content()), "the same block, byte for byte");
            Digest zeros = new Digest(ChecksumAlgorithm.SHA256, new byte[32]);
            SealedBlock vouched = given.seal(data, 0, "f", true, zeros);
            assertEquals(zeros, vouched.digest(), "the caller's digest, not hashed again");
            assertThrows(IllegalArgumentException.class,
                    () -> given.seal(data, 0, "f", true, new Digest(ChecksumAlgorithm.MD5, new byte[16])));
            made.block().release();
            taken.block().release();
            vouched.block().release();
        } finally {
            data.release();
        }
        assertEquals(0, data.refCnt());
    }

    /** Each provider that runs here: the native one where it loads. */
    static Stream<Encryptor.Provider> providers() {
        return Stream.of(Encryptor.Provider.preferred(), Encryptor.Provider.JDK, Encryptor.Provider.BOUNCY_CASTLE).distinct();
    }

    @ParameterizedTest
    @MethodSource("providers")
    void aBlockSealedWhereItsDataLiesIsTheBlockSealedFromACopy(Encryptor.Provider provider) {
        byte[] data = TestData.random(100_000, 8);
        String name = "dir/ünïcode.bin";
        try (BlockPipeline copying = BlockPipeline.builder().encryption(TransferKey.of(TRANSFER, KEY256), provider).build();
             BlockPipeline inPlace = BlockPipeline.builder().encryption(TransferKey.of(TRANSFER, KEY256), provider).build();
             BlockPipeline compressing = BlockPipeline.builder().encryption(TransferKey.of(TRANSFER, KEY256), provider)
                     .compression(1).build()) {
            int room = inPlace.roomBefore(name);
            assertEquals(BlockDescriptor.encodedLength(name), room);
            assertEquals(0, compressing.roomBefore(name), "a compressed body is a new buffer: no room to give");
            ByteBuf plain = Unpooled.wrappedBuffer(data);
            ByteBuf roomy = Unpooled.directBuffer(room + data.length).writeZero(room).writeBytes(data).readerIndex(room);
            try {
                SealedBlock copied = copying.seal(plain, 77, name, true);
                SealedBlock sealed = inPlace.seal(roomy, room, 77, name, true, null);
                assertTrue(ByteBufUtil.equals(copied.block().content(), sealed.block().content()), "the same block, byte for byte");
                assertEquals(copied.digest(), sealed.digest());
                assertArrayEquals(data, ByteBufUtil.getBytes(roomy), "the data is read, never written");
                copied.block().release();
                sealed.block().release();
                assertThrows(IllegalArgumentException.class, () -> inPlace.seal(roomy, room + 1, 77, name, true, null),
                        "more room than there are bytes before the data");
            } finally {
                plain.release();
                roomy.release();
            }
        }
    }

    @Test
    void randomDataIsNotCompressedAndTextIs() {
        try (BlockPipeline p = BlockPipeline.builder().compression(3).build()) {
            ByteBuf random = Unpooled.wrappedBuffer(TestData.random(65_536, 9));
            ByteBuf text = Unpooled.wrappedBuffer(TestData.text(65_536, 9));
            SealedBlock a = p.seal(random, 0, "r", false);
            SealedBlock b = p.seal(text, 0, "t", false);
            assertFalse(a.block().header().flags().isCompressed());
            assertEquals(65_536, a.block().header().payloadLength(), "sent as it is, not one byte longer");
            assertTrue(b.block().header().flags().isCompressed());
            assertTrue(b.block().header().payloadLength() < 65_536 / 2, "text shrinks to less than half");
            a.block().release();
            b.block().release();
            random.release();
            text.release();
        }
    }

    @Test
    void bodiesOfOneFileOpenAtAlignedAddressesForODirectWrites() {
        byte[] data = TestData.random(3 * 4096, 9);
        try (BlockPipeline sender = Cipher.AES256_JDK.apply(BlockPipeline.builder()).build();
             BlockPipeline receiver = Cipher.AES256_JDK.apply(BlockPipeline.builder()).digest(null).bodyAlignment(4096).build()) {
            for (int i = 0; i < 4; i++) {
                byte[] wire = sealToBytes(sender, data, "dir/a-name-of-some-length.bin");
                ByteBuf buf = Unpooled.wrappedBuffer(wire);
                Block b = Blocks.parse(buf, BlockLimits.DEFAULT);
                OpenedBlock o = receiver.open(b, "dir/a-name-of-some-length.bin");
                try {
                    ByteBuf body = o.content();
                    assertArrayEquals(data, ByteBufUtil.getBytes(body));
                    {
                        assertTrue(body.hasMemoryAddress(), "a direct buffer");
                        assertEquals(0, (body.memoryAddress() + body.readerIndex()) % 4096, "body address of block " + i);
                    }
                } finally {
                    o.release();
                    b.release();
                    buf.release();
                }
            }
        }
    }

    @Test
    void bodyAlignmentMustBeAPowerOfTwo() {
        assertThrows(IllegalArgumentException.class, () -> BlockPipeline.builder().bodyAlignment(3000));
    }

    // ---- tampering ------------------------------------------------------------------------------------------

    private static byte[] sealToBytes(BlockPipeline p, byte[] data, String name) {
        ByteBuf in = Unpooled.wrappedBuffer(data);
        SealedBlock s = p.seal(in, 4096, name, false);
        byte[] wire = ByteBufUtil.getBytes(s.block().content());
        s.block().release();
        return wire;
    }

    /** Parses and opens; any refusal counts as detection. Returns null if the block was accepted. */
    private static RuntimeException refusal(BlockPipeline receiver, byte[] wire) {
        ByteBuf buf = Unpooled.wrappedBuffer(wire);
        try {
            Block b = Blocks.parse(buf, BlockLimits.DEFAULT);
            try {
                receiver.open(b).release();
                return null;
            } finally {
                b.release();
            }
        } catch (DecoderException e) {
            return e;
        } finally {
            buf.release();
        }
    }

    @ParameterizedTest
    @EnumSource(Cipher.class)
    void everySingleBitFlipIsCaughtByTheWireChecksum(Cipher cipher) {
        try (BlockPipeline sender = pipeline(cipher, ChecksumAlgorithm.CRC32C, null, true);
             BlockPipeline receiver = pipeline(cipher, ChecksumAlgorithm.CRC32C, null, false)) {
            byte[] wire = sealToBytes(sender, TestData.text(200, 4), "a/b.txt");
            for (int bit = 0; bit < wire.length * 8; bit++) {
                byte[] t = wire.clone();
                t[bit / 8] ^= (byte) (1 << (bit % 8));
                if (refusal(receiver, t) == null) {
                    fail("bit " + bit + " flipped and the block was accepted");
                }
            }
            assertNull(refusal(receiver, wire), "the untouched block opens");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Cipher.class, names = {"AES128_JDK", "AES256_BC"})
    void everySingleBitFlipFailsTheTagEvenWhenTheChecksumIsRecomputed(Cipher cipher) {
        try (BlockPipeline sender = pipeline(cipher, ChecksumAlgorithm.CRC32C, null, true);
             BlockPipeline receiver = pipeline(cipher, ChecksumAlgorithm.CRC32C, null, false)) {
            byte[] wire = sealToBytes(sender, TestData.text(200, 4), "a/b.txt");
            int covered = wire.length - 4;
            int tagFailures = 0;
            for (int bit = 0; bit < covered * 8; bit++) {
                byte[] t = wire.clone();
                t[bit / 8] ^= (byte) (1 << (bit % 8));
                byte[] crc = ChecksumAlgorithm.CRC32C.newHasher().update(t, 0, covered).finish().value();
                System.arraycopy(crc, 0, t, covered, 4);
                RuntimeException e = refusal(receiver, t);
                if (e == null) {
                    fail("bit " + bit + " flipped, checksum recomputed, and the block was accepted");
                }
                tagFailures += e instanceof BlockAuthenticationException ? 1 : 0;
            }
            // Header bits the format itself rejects (version, flags, lengths) fail earlier; all the rest hit the tag.
            assertTrue(tagFailures > covered * 8 - 200, "tag failures: " + tagFailures + " of " + covered * 8);
        }
    }

    @Test
    void aBlockMovedToAnotherSequenceNumberFailsTheTag() {
        try (BlockPipeline sender = pipeline(Cipher.AES256_JDK, ChecksumAlgorithm.SHA256, null, false);
             BlockPipeline receiver = pipeline(Cipher.AES256_JDK, ChecksumAlgorithm.SHA256, null, false)) {
            byte[] first = sealToBytes(sender, TestData.random(100, 1), "f");
            byte[] moved = first.clone();
            moved[21] ^= 1; // sequence 0 -> 1
            byte[] sha = ChecksumAlgorithm.SHA256.newHasher().update(moved, 0, moved.length - 32).finish().value();
            System.arraycopy(sha, 0, moved, moved.length - 32, 32);
            RuntimeException e = refusal(receiver, moved);
            assertTrue(e instanceof BlockAuthenticationException, String.valueOf(e));
            assertTrue(e.getMessage().startsWith("block 5eedf00d12345678#1: AES-GCM tag mismatch"), e.getMessage());
        }
    }

    @Test
    void aBlockFromAnotherTransferIsRefused() {
        try (BlockPipeline sender = pipeline(Cipher.AES128_JDK, ChecksumAlgorithm.CRC32C, null, false);
             BlockPipeline other = BlockPipeline.builder().encryption(TransferKey.of(TRANSFER + 1, KEY128)).build()) {
            byte[] wire = sealToBytes(sender, TestData.random(100, 1), "f");
            RuntimeException e = refusal(other, wire);
            assertTrue(e instanceof BlockFormatException && e.getMessage().contains("transfer id: 5eedf00d12345678 (expected: 5eedf00d12345679)"),
                    String.valueOf(e));
        }
    }

    @Test
    void aReplayedBlockIsRefusedUntilForgotten() {
        ReplayGuard guard = new ReplayGuard();
        try (BlockPipeline sender = pipeline(Cipher.AES128_JDK, ChecksumAlgorithm.CRC32C, null, false);
             BlockPipeline receiver = Cipher.AES128_JDK.apply(BlockPipeline.builder().replayGuard(guard)).build()) {
            byte[] wire = sealToBytes(sender, TestData.random(100, 1), "f");
            assertNull(refusal(receiver, wire));
            RuntimeException e = refusal(receiver, wire);
            assertTrue(e instanceof ReplayedBlockException, String.valueOf(e));
            assertEquals("block 5eedf00d12345678#0: sequence 0 already received (expected: each block once)", e.getMessage());
            guard.forget(0);
            assertNull(refusal(receiver, wire), "a block whose data never reached the disk may be fetched again");
        }
    }

    @Test
    void aClearBlockIsRefusedWhereTheTransferIsEncrypted() {
        try (BlockPipeline clear = pipeline(Cipher.NONE, ChecksumAlgorithm.CRC32C, null, false);
             BlockPipeline receiver = pipeline(Cipher.AES128_JDK, ChecksumAlgorithm.CRC32C, null, false)) {
            RuntimeException e = refusal(receiver, sealToBytes(clear, TestData.random(10, 1), "f"));
            assertTrue(e instanceof BlockFormatException && e.getMessage().contains("(expected: ENCRYPTED, this transfer is encrypted)"),
                    String.valueOf(e));
        }
    }

    @Test
    void theSameSequenceNumberIsNeverUsedTwiceAcrossPipelinesSharingASequence() {
        NonceSequence shared = new NonceSequence();
        try (BlockPipeline a = Cipher.AES128_JDK.apply(BlockPipeline.builder().sequence(shared)).build();
             BlockPipeline b = Cipher.AES128_JDK.apply(BlockPipeline.builder().sequence(shared)).build()) {
            ByteBuf data = Unpooled.wrappedBuffer(new byte[10]);
            SealedBlock s1 = a.seal(data, 0, "f", false);
            SealedBlock s2 = b.seal(data, 0, "f", false);
            SealedBlock s3 = a.seal(data, 0, "f", false);
            assertEquals(List.of(0L, 1L, 2L), List.of(s1.block().header().sequence(), s2.block().header().sequence(),
                    s3.block().header().sequence()));
            s1.block().release();
            s2.block().release();
            s3.block().release();
            data.release();
        }
    }

    @Test
    void relaysLearnNeitherNameNorOffsetOfAnEncryptedBlock() {
        try (BlockPipeline sender = pipeline(Cipher.AES128_JDK, ChecksumAlgorithm.CRC32C, null, false)) {
            byte[] wire = sealToBytes(sender, TestData.text(300, 1), "secret-plans/budget.xlsx");
            String seen = new String(wire, java.nio.charset.StandardCharsets.ISO_8859_1);
            assertFalse(seen.contains("secret"), "name is sealed");
            assertFalse(seen.contains("transfer"), "data is sealed");
            ByteBuf buf = Unpooled.wrappedBuffer(wire);
            Block b = Blocks.parse(buf, BlockLimits.DEFAULT);
            assertNull(b.header().descriptor());
            assertEquals(BlockHeader.FIXED_LENGTH, b.header().headerLength());
            b.release();
            buf.release();
        }
    }

    // ---- lying compressed data -------------------------------------------------------------------------------

    @Test
    void compressedDataLongerOrShorterThanItsDescriptorSaysIsRefused() {
        ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
        try (Compressor c = new Compressor(1); BlockPipeline receiver = pipeline(Cipher.NONE, ChecksumAlgorithm.CRC32C, null, false)) {
            ByteBuf text = Unpooled.wrappedBuffer(TestData.text(10_000, 1));
            ByteBuf z = c.compress(alloc, text);
            for (int claimed : new int[] {9_999, 10_001, z.readableBytes() + 1}) {
                BlockHeader h = BlockHeader.data(ChecksumAlgorithm.CRC32C, new BlockFlags(BlockFlags.DATA | BlockFlags.COMPRESSED),
                        TRANSFER, 0, z.readableBytes(), new BlockDescriptor(0, claimed, "f"));
                ByteBuf wire = Unpooled.buffer();
                h.encode(wire);
                wire.writeBytes(z, z.readerIndex(), z.readableBytes());
                new WireChecksum(ChecksumAlgorithm.CRC32C).append(wire);
                RuntimeException e = refusal(receiver, ByteBufUtil.getBytes(wire));
                assertTrue(e instanceof BlockFormatException && e.getMessage().startsWith("block 5eedf00d12345678#0: "), String.valueOf(e));
                wire.release();
            }
            z.release();
            text.release();
        }
    }

    @Test
    void dataOverTheLimitIsRefusedBeforeSealing() {
        try (BlockPipeline p = BlockPipeline.builder().limits(new BlockLimits(1000, 100)).build()) {
            ByteBuf big = Unpooled.wrappedBuffer(new byte[1001]);
            BlockTooLongException e = assertThrows(BlockTooLongException.class, () -> p.seal(big, 0, "f", false));
            assertEquals("data length: 1001 (expected: <= 1000)", e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> p.seal(big.slice(0, 10), 0, "../etc/passwd", false));
            big.release();
        }
    }
}

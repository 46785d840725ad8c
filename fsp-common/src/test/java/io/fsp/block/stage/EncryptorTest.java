package io.fsp.block.stage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.block.BlockAuthenticationException;
import io.fsp.crypto.TransferKey;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.security.SecureRandom;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class EncryptorTest {
    private static final ByteBuf AAD = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4}));

    /** Blocks read from a socket often arrive as several buffers; each way of cutting them opens the same. */
    @ParameterizedTest
    @MethodSource("availableProviders")
    void sealedBytesInSeveralPartsOpenLikeOnePart(Encryptor.Provider provider) {
        Encryptor e = new Encryptor(TransferKey.generate(7, 256, new SecureRandom()), provider);
        byte[] plain = new byte[300_001];
        new Random(1).nextBytes(plain);
        ByteBuf sealed = seal(e, 5, plain);
        for (int parts : new int[] {1, 2, 3, 17}) {
            CompositeByteBuf composite = cut(sealed, parts);
            ByteBuf out = Unpooled.directBuffer(plain.length);
            e.open(5, AAD, composite, out, "block 5");
            assertArrayEquals(plain, ByteBufUtil.getBytes(out), parts + " parts");
            out.release();
            composite.release();
        }
        sealed.release();
    }

    @ParameterizedTest
    @MethodSource("availableProviders")
    void aFlippedBitInAnyPartFailsTheTag(Encryptor.Provider provider) {
        Encryptor e = new Encryptor(TransferKey.generate(7, 128, new SecureRandom()), provider);
        ByteBuf sealed = seal(e, 9, new byte[100_000]);
        sealed.setByte(70_000, sealed.getByte(70_000) ^ 0x10);
        CompositeByteBuf composite = cut(sealed, 3);
        ByteBuf out = Unpooled.directBuffer(100_000);
        assertThrows(BlockAuthenticationException.class, () -> e.open(9, AAD, composite, out, "block 9"));
        out.release();
        composite.release();
        sealed.release();
    }

    /** The native, JDK and Bouncy Castle providers put the same bytes on the wire and open each other's blocks. */
    @Test
    void everyProviderSealsTheSameBytesAndOpensTheOthers() {
        TransferKey key = TransferKey.generate(11, 256, new SecureRandom());
        byte[] plain = new byte[1 << 20];
        new Random(2).nextBytes(plain);
        ByteBuf reference = seal(new Encryptor(key, Encryptor.Provider.JDK), 42, plain);
        for (Encryptor.Provider sealer : availableProviders()) {
            ByteBuf sealed = seal(new Encryptor(key, sealer), 42, plain);
            assertTrue(ByteBufUtil.equals(reference, sealed), sealer + " sealed other bytes than JDK");
            for (Encryptor.Provider opener : availableProviders()) {
                ByteBuf out = Unpooled.directBuffer(plain.length);
                new Encryptor(key, opener).open(42, AAD, sealed, out, "block 42");
                assertArrayEquals(plain, ByteBufUtil.getBytes(out), sealer + " sealed, " + opener + " opened");
                out.release();
            }
            sealed.release();
        }
        reference.release();
    }

    /** Where the native library loads (linux-x86_64, as in CI), NATIVE is among them: the fast path is tested too. */
    private static java.util.List<Encryptor.Provider> availableProviders() {
        return java.util.Arrays.stream(Encryptor.Provider.values())
                .filter(p -> p != Encryptor.Provider.NATIVE || io.fsp.crypto.NativeCrypto.aesGcm().isPresent())
                .toList();
    }

    @Test
    void warmUpLeavesEncryptionWorkingAndRunsOnce() {
        Encryptor.warmUp();
        long start = System.nanoTime();
        Encryptor.warmUp();
        assertTrue(System.nanoTime() - start < 50_000_000L, "a second warm-up returns at once");
        Encryptor e = new Encryptor(TransferKey.generate(3, 256, new SecureRandom()));
        byte[] plain = "after the warm-up".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        ByteBuf sealed = seal(e, 0, plain);
        ByteBuf out = Unpooled.buffer(plain.length);
        e.open(0, AAD, sealed, out, "block 0");
        assertArrayEquals(plain, ByteBufUtil.getBytes(out));
        out.release();
        sealed.release();
    }

    private static ByteBuf seal(Encryptor e, long seq, byte[] plain) {
        ByteBuf in = Unpooled.wrappedBuffer(plain);
        ByteBuf sealed = Unpooled.directBuffer(Encryptor.sealedLength(plain.length));
        e.seal(seq, AAD, in, Unpooled.EMPTY_BUFFER, sealed);
        return sealed;
    }

    /** {@code parts} retained slices of {@code whole}, as one composite buffer. */
    private static CompositeByteBuf cut(ByteBuf whole, int parts) {
        CompositeByteBuf c = Unpooled.compositeBuffer(parts);
        int n = whole.readableBytes();
        for (int i = 0; i < parts; i++) {
            int from = n * i / parts;
            int to = n * (i + 1) / parts;
            c.addComponent(true, whole.retainedSlice(from, to - from));
        }
        return c;
    }
}

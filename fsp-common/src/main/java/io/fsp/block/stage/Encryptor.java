package io.fsp.block.stage;

import io.fsp.block.BlockAuthenticationException;
import io.fsp.block.BlockHeader;
import io.fsp.crypto.NativeCrypto;
import io.fsp.crypto.NonceSequence;
import io.fsp.crypto.TransferKey;
import io.fsp.program.WarmUp;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.engines.AESEngine;
import org.bouncycastle.crypto.modes.GCMBlockCipher;
import org.bouncycastle.crypto.modes.GCMModeCipher;
import org.bouncycastle.crypto.params.AEADParameters;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * AES-GCM (128 or 256 bit, by the {@link TransferKey}) with a 16-byte tag (paper 004 §3.5). The nonce of
 * block {@code s} is {@link NonceSequence#nonce(long, long) transferId || s}, and the caller passes the clear
 * header as associated data: a block moved to another sequence number or transfer, or with any header bit
 * changed, fails the tag. Not thread-safe: one per thread.
 */
public final class Encryptor {

    /** Which AES-GCM implementation runs. All three put the same bytes on the wire. */
    public enum Provider {
        /** SunJCE, with AES-NI and carry-less multiply intrinsics once the JIT has compiled them. */
        JDK,
        /** AWS-LC's assembly through {@link NativeCrypto}: full speed from the first block. */
        NATIVE,
        /** Bouncy Castle's lightweight API. */
        BOUNCY_CASTLE;

        /** NATIVE where it loads in this JVM (see {@link NativeCrypto}), else JDK. */
        public static Provider preferred() {
            return NativeCrypto.aesGcm().isPresent() ? NATIVE : JDK;
        }
    }

    private static final int SCRATCH = 64 * 1024;
    private static final int JCA_CHUNK = 64 * 1024;
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    private static final AtomicBoolean WARMED_UP = new AtomicBoolean();
    private static final int WARM_UP_ROUNDS = 2_000;
    private static final int WARM_UP_LENGTH = 8 * 1024; // above the JDK's 7,680-byte threshold for its AVX-512 AES-GCM path

    private final TransferKey key;
    private final Provider provider;
    private final byte[] nonce = new byte[NonceSequence.NONCE_LENGTH];
    private final Cipher jca;
    private final GCMModeCipher bc;
    private final KeyParameter bcKey;
    private byte[] scratchIn;
    private byte[] scratchOut;

    public Encryptor(TransferKey key) {
        this(key, Provider.preferred());
    }

    public Encryptor(TransferKey key, Provider provider) {
        this.key = key;
        this.provider = provider;
        if (provider != Provider.BOUNCY_CASTLE) {
            try {
                jca = provider == Provider.JDK
                        ? Cipher.getInstance("AES/GCM/NoPadding", "SunJCE")
                        : Cipher.getInstance("AES/GCM/NoPadding", NativeCrypto.aesGcm()
                                .orElseThrow(() -> new IllegalStateException("native AES-GCM: " + NativeCrypto.description())));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("every Java 17 runtime provides AES/GCM/NoPadding", e);
            }
            bc = null;
            bcKey = null;
        } else {
            jca = null;
            bc = GCMBlockCipher.newInstance(AESEngine.newInstance());
            bcKey = new KeyParameter(key.encoded());
        }
    }

    public Provider provider() {
        return provider;
    }

    public TransferKey key() {
        return key;
    }

    /** Ciphertext length for {@code plainLength} bytes of plaintext. */
    public static int sealedLength(int plainLength) {
        return plainLength + BlockHeader.TAG_LENGTH;
    }

    /**
     * Encrypts the readable bytes of {@code first} then {@code second} (indices unchanged), as one plaintext,
     * and writes ciphertext and tag at the writer index of {@code out}, which must have room.
     */
    public void seal(long sequence, ByteBuf aad, ByteBuf first, ByteBuf second, ByteBuf out) {
        NonceSequence.nonce(key.transferId(), sequence, nonce);
        int plain = first.readableBytes() + second.readableBytes();
        int sealed = sealedLength(plain);
        if (out.writableBytes() < sealed) {
            throw new IllegalArgumentException("out writable: " + out.writableBytes() + " (expected: >= " + sealed + ")");
        }
        try {
            if (jca != null) {
                jca.init(Cipher.ENCRYPT_MODE, key.secretKey(), new GCMParameterSpec(128, nonce));
                jca.updateAAD(aad.nioBuffer());
                ByteBuffer dst = out.nioBuffer(out.writerIndex(), sealed);
                if (provider == Provider.NATIVE) {
                    sealInOneCall(first, second, dst, out.alloc());
                } else {
                    jcaUpdateInChunks(first, dst);
                    jcaUpdateInChunks(second, dst);
                    jca.doFinal(EMPTY, dst);
                }
                if (dst.hasRemaining()) {
                    throw new IllegalStateException("AES-GCM wrote " + dst.position() + " bytes (expected: " + sealed + ")");
                }
                out.writerIndex(out.writerIndex() + sealed);
            } else {
                bc.init(true, new AEADParameters(bcKey, 128, nonce.clone()));
                bcAad(aad);
                bcProcess(first, out);
                bcProcess(second, out);
                bcFinal(out);
            }
        } catch (GeneralSecurityException | InvalidCipherTextException e) {
            throw new IllegalStateException("AES-GCM encryption failed: " + e.getMessage(), e);
        }
    }

    /**
     * Decrypts and authenticates the readable bytes of {@code sealed} (ciphertext and tag), writing the
     * plaintext at the writer index of {@code out}. On a bad tag nothing of {@code out} may be used.
     *
     * @param block the block's name for error messages
     */
    public void open(long sequence, ByteBuf aad, ByteBuf sealed, ByteBuf out, String block) {
        NonceSequence.nonce(key.transferId(), sequence, nonce);
        int plain = sealed.readableBytes() - BlockHeader.TAG_LENGTH;
        if (plain < 0) {
            throw new BlockAuthenticationException(block + ": sealed length: " + sealed.readableBytes()
                    + " (expected: >= " + BlockHeader.TAG_LENGTH + ")");
        }
        if (out.writableBytes() < plain) {
            throw new IllegalArgumentException("out writable: " + out.writableBytes() + " (expected: >= " + plain + ")");
        }
        try {
            if (jca != null) {
                jca.init(Cipher.DECRYPT_MODE, key.secretKey(), new GCMParameterSpec(128, nonce));
                jca.updateAAD(aad.nioBuffer());
                ByteBuffer dst = out.nioBuffer(out.writerIndex(), plain);
                if (sealed.nioBufferCount() == 1) {
                    jca.doFinal(sealed.nioBuffer(), dst);
                } else {
                    // The JDK would gather the parts into a heap array of its own and decrypt from there, on
                    // a path the JIT compiles late; one copy into a contiguous direct buffer costs far less.
                    ByteBuf contiguous = sealed.alloc().directBuffer(sealed.readableBytes());
                    try {
                        contiguous.writeBytes(sealed, sealed.readerIndex(), sealed.readableBytes());
                        jca.doFinal(contiguous.nioBuffer(), dst);
                    } finally {
                        contiguous.release();
                    }
                }
                out.writerIndex(out.writerIndex() + plain);
            } else {
                bc.init(false, new AEADParameters(bcKey, 128, nonce.clone()));
                bcAad(aad);
                bcProcess(sealed, out);
                bcFinal(out);
            }
        } catch (AEADBadTagException | InvalidCipherTextException e) {
            throw new BlockAuthenticationException(block + ": AES-GCM tag mismatch (expected: a block sealed under"
                    + " this transfer's key, with this header and sequence number)", e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM decryption failed: " + e.getMessage(), e);
        }
    }

    /**
     * Seals and opens small blocks until the JIT has compiled the JDK's AES-GCM intrinsics, once per JVM;
     * later calls return at once. Without it, a receiver that opens one 4 MiB block per call keeps running
     * the interpreted GHASH for hundreds of blocks (heap-buffer decryption never gets faster), because the
     * JIT counts calls, not bytes. Covers the paths a transfer takes: chunked sealing, and opening direct, heap
     * and composite buffers. Takes a few tenths of a second, less than the cold path would lose; run it on a
     * spare thread before the first block arrives.
     */
    public static void warmUp() {
        warmUp(WARM_UP_ROUNDS, WARM_UP_LENGTH);
    }

    /** {@link #warmUp()} as a {@link WarmUp} where the JDK's AES-GCM serves; returns at once. */
    public static void warmUpInBackground() {
        if (!WARMED_UP.get() && Provider.preferred() == Provider.JDK) {
            WarmUp.inBackground("AES-GCM", Encryptor::warmUp);
        }
    }

    static void warmUp(int rounds, int length) {
        if (!WARMED_UP.compareAndSet(false, true)) {
            return;
        }
        Encryptor e = new Encryptor(TransferKey.generate(0, 256, new SecureRandom()), Provider.JDK);
        ByteBuf aad = Unpooled.wrappedBuffer(new byte[BlockHeader.FIXED_LENGTH]);
        ByteBuf plain = Unpooled.directBuffer(length).writeZero(length);
        ByteBuf sealed = Unpooled.directBuffer(sealedLength(length));
        ByteBuf direct = Unpooled.directBuffer(length);
        ByteBuf heap = Unpooled.buffer(length);
        try {
            for (int i = 0; i < rounds; i++) {
                sealed.clear();
                e.seal(i, aad, plain, Unpooled.EMPTY_BUFFER, sealed);
                ByteBuf out = (i & 1) == 0 ? direct.clear() : heap.clear();
                if (i % 4 == 3) {
                    int half = sealed.readableBytes() / 2;
                    CompositeByteBuf parts = Unpooled.compositeBuffer(2)
                            .addComponent(true, sealed.retainedSlice(0, half))
                            .addComponent(true, sealed.retainedSlice(half, sealed.readableBytes() - half));
                    try {
                        e.open(i, aad, parts, out, "warm-up");
                    } finally {
                        parts.release();
                    }
                } else {
                    e.open(i, aad, sealed, out, "warm-up");
                }
            }
        } finally {
            aad.release();
            plain.release();
            sealed.release();
            direct.release();
            heap.release();
        }
    }

    /**
     * BoringSSL seals a whole plaintext in one call, reading and writing direct buffers in place; input given
     * in updates would first be gathered into a heap array. So the two parts are gathered once, here, unless
     * one of them is empty and the other lies in one piece.
     */
    private void sealInOneCall(ByteBuf first, ByteBuf second, ByteBuffer dst, ByteBufAllocator alloc) throws GeneralSecurityException {
        ByteBuf only = !first.isReadable() ? second : !second.isReadable() ? first : null;
        if (only != null && only.nioBufferCount() == 1) {
            jca.doFinal(only.nioBuffer(), dst);
            return;
        }
        ByteBuf plain = alloc.directBuffer(first.readableBytes() + second.readableBytes());
        try {
            plain.writeBytes(first, first.readerIndex(), first.readableBytes());
            plain.writeBytes(second, second.readerIndex(), second.readableBytes());
            jca.doFinal(plain.nioBuffer(), dst);
        } finally {
            plain.release();
        }
    }

    /**
     * Encrypts in 64 KiB steps. The output is the same as one call, but the JIT compiles the AES-GCM
     * intrinsic after a few blocks instead of after thousands (one call per 4 MiB block stays interpreted,
     * at about a fortieth of the speed, for minutes). Decryption cannot do this: the JDK buffers decrypted
     * input until the tag is checked.
     */
    private void jcaUpdateInChunks(ByteBuf in, ByteBuffer dst) throws GeneralSecurityException {
        for (ByteBuffer part : in.nioBuffers()) {
            int end = part.limit();
            for (int p = part.position(); p < end; p += JCA_CHUNK) {
                part.limit(Math.min(end, p + JCA_CHUNK)).position(p);
                jca.update(part, dst);
            }
        }
    }

    private void bcAad(ByteBuf aad) {
        byte[] a = new byte[aad.readableBytes()];
        aad.getBytes(aad.readerIndex(), a);
        bc.processAADBytes(a, 0, a.length);
    }

    /** Bouncy Castle reads and writes arrays: direct buffers pass through scratch arrays. */
    private void bcProcess(ByteBuf in, ByteBuf out) {
        if (scratchIn == null) {
            scratchIn = new byte[SCRATCH];
            scratchOut = new byte[SCRATCH + 2 * BlockHeader.TAG_LENGTH];
        }
        int end = in.readerIndex() + in.readableBytes();
        for (int i = in.readerIndex(); i < end; i += SCRATCH) {
            int n = Math.min(SCRATCH, end - i);
            int written;
            if (in.hasArray()) {
                written = bc.processBytes(in.array(), in.arrayOffset() + i, n, scratchOut, 0);
            } else {
                in.getBytes(i, scratchIn, 0, n);
                written = bc.processBytes(scratchIn, 0, n, scratchOut, 0);
            }
            out.writeBytes(scratchOut, 0, written);
        }
    }

    private void bcFinal(ByteBuf out) throws InvalidCipherTextException {
        int written = bc.doFinal(scratchOut == null ? (scratchOut = new byte[SCRATCH + 32]) : scratchOut, 0);
        out.writeBytes(scratchOut, 0, written);
    }
}

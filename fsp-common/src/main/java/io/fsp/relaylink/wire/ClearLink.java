package io.fsp.relaylink.wire;

import io.fsp.crypto.NativeCrypto;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * A clear link: a second connection to a relay that carries sealed blocks without TLS (docs/protocol.md §3.7). Its
 * peer got a ticket and a secret from the relay over its TLS connection (BIND_GRANT), opens a plain TCP connection,
 * sends {@link #PREAMBLE} and the ticket, and from then on every frame in each direction carries a tag under a key of
 * that direction derived from the secret, over the frame's number in that direction, its header and its body. A
 * PUT_BLOCK's tag covers the block bytes too, so a relay never stores, and a server never counts placed, a block
 * changed on the way. A BLOCK's tag stops before the block bytes: every peer that fetches a block holds the transfer's
 * key and digests and checks the bytes itself, and a relay serving a block from its file does not read it to tag it.
 *
 * <p>The tag is AES-128-GMAC's: AES-GCM under the direction's key with the frame's number as nonce, the header and
 * the covered body as associated data, nothing encrypted. Native GCM takes associated data at 2-3 GB/s per core here,
 * where HMAC-SHA256 runs at about one; a nonce is never used twice under one key, since a direction numbers its
 * frames once.
 */
public final class ClearLink {
    /** What a clear link starts with, where a TLS connection starts with a handshake record (0x16). */
    public static final byte[] PREAMBLE = {'F', 'S', 'P', 'C'};
    public static final int TICKET_LENGTH = 16;
    public static final int SECRET_LENGTH = 32;
    public static final int TAG_LENGTH = 16;
    private static final String HMAC = "HmacSHA256";
    private static final int KEY_LENGTH = 16;
    private static final SecureRandom RANDOM = new SecureRandom();

    private ClearLink() {
    }

    public static byte[] random(int length) {
        byte[] b = new byte[length];
        RANDOM.nextBytes(b);
        return b;
    }

    /** The tags of frames the peer sends to the relay. */
    public static FrameTags toRelay(byte[] secret) {
        return new FrameTags(derive(secret, "fsp clear link: peer to relay"));
    }

    /** The tags of frames the relay sends to the peer. */
    public static FrameTags fromRelay(byte[] secret) {
        return new FrameTags(derive(secret, "fsp clear link: relay to peer"));
    }

    /** Whether a frame's tag covers its block bytes: only a PUT_BLOCK's (see the class comment). */
    public static boolean tagsBlockBytes(int type) {
        return type == RelayFrame.PUT_BLOCK.wire();
    }

    private static byte[] derive(byte[] secret, String label) {
        if (secret.length != SECRET_LENGTH) {
            throw new IllegalArgumentException("secret: " + secret.length + " bytes (expected: " + SECRET_LENGTH + ")");
        }
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(secret, HMAC));
            return Arrays.copyOf(mac.doFinal(label.getBytes(StandardCharsets.US_ASCII)), KEY_LENGTH);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 unavailable", e);
        }
    }

    /**
     * The tags of one direction of one link: frames are numbered from 0, so a frame replayed, dropped, reordered or
     * taken from another link no longer matches its tag. Used by one thread at a time (a channel's event loop).
     */
    public static final class FrameTags {
        private final SecretKeySpec key;
        private final Cipher gcm;
        private final byte[] nonce = new byte[12];
        private final byte[] header = new byte[RelayFrame.HEADER_LENGTH];
        private long next;

        FrameTags(byte[] key) {
            this.key = new SecretKeySpec(key, "AES");
            try {
                gcm = NativeCrypto.gmac();
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("AES-GCM unavailable", e);
            }
        }

        /**
         * The tag of the next frame: over its number, its header ({@code type}, {@code length}) and the readable
         * bytes of {@code covered} (not moved), in order: the whole body, or a BLOCK's body up to the block bytes.
         */
        public byte[] next(int type, int length, ByteBuf... covered) {
            long n = next++;
            for (int i = 0; i < 8; i++) {
                nonce[4 + i] = (byte) (n >>> (56 - 8 * i));
            }
            header[0] = (byte) type;
            for (int i = 0; i < 4; i++) {
                header[1 + i] = (byte) (length >>> (24 - 8 * i));
            }
            try {
                gcm.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_LENGTH * 8, nonce));
                gcm.updateAAD(header);
                for (ByteBuf buf : covered) {
                    for (ByteBuffer part : buf.nioBuffers()) {
                        gcm.updateAAD(part);
                    }
                }
                return gcm.doFinal(); // nothing encrypted: the tag alone
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("AES-GCM failed", e);
            }
        }

        /** Whether {@code tag} is the next frame's tag over {@code covered} (compared in constant time). */
        public boolean check(int type, int length, byte[] tag, ByteBuf... covered) {
            return MessageDigest.isEqual(next(type, length, covered), tag);
        }
    }
}

package io.fsp.relay.wire;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A clear link: a second connection to a relay that carries sealed blocks without TLS (docs/protocol.md §3.7). Its
 * peer got a ticket and a secret from the relay over its TLS connection (BIND_GRANT), opens a plain TCP connection,
 * sends {@link #PREAMBLE} and the ticket, and from then on every frame in each direction carries a tag: HMAC-SHA256,
 * under a key of that direction derived from the secret, over the frame's number in that direction, its header and
 * the body up to the block bytes. The block bytes are not tagged: a block is already sealed (AES-GCM) and its digest
 * reaches the client over TLS, so a changed block is found and fetched again, as from a faulty relay.
 */
public final class ClearLink {
    /** What a clear link starts with, where a TLS connection starts with a handshake record (0x16). */
    public static final byte[] PREAMBLE = {'F', 'S', 'P', 'C'};
    public static final int TICKET_LENGTH = 16;
    public static final int SECRET_LENGTH = 32;
    public static final int TAG_LENGTH = 16;
    private static final String HMAC = "HmacSHA256";
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

    private static byte[] derive(byte[] secret, String label) {
        if (secret.length != SECRET_LENGTH) {
            throw new IllegalArgumentException("secret: " + secret.length + " bytes (expected: " + SECRET_LENGTH + ")");
        }
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(secret, HMAC));
            return mac.doFinal(label.getBytes(StandardCharsets.US_ASCII));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 unavailable", e);
        }
    }

    /**
     * The tags of one direction of one link: frames are numbered from 0, so a frame replayed, dropped, reordered or
     * taken from another link no longer matches its tag. Used by one thread at a time (a channel's event loop).
     */
    public static final class FrameTags {
        private final Mac mac;
        private long next;

        FrameTags(byte[] key) {
            try {
                mac = Mac.getInstance(HMAC);
                mac.init(new SecretKeySpec(key, HMAC));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HMAC-SHA256 unavailable", e);
            }
        }

        /**
         * The tag of the next frame: over its number, its header ({@code type}, {@code length}) and {@code covered}'s
         * readable bytes (not moved): the whole body, or a block frame's body up to the block bytes.
         */
        public byte[] next(int type, int length, ByteBuf covered) {
            long n = next++;
            for (int shift = 56; shift >= 0; shift -= 8) {
                mac.update((byte) (n >>> shift));
            }
            mac.update((byte) type);
            for (int shift = 24; shift >= 0; shift -= 8) {
                mac.update((byte) (length >>> shift));
            }
            if (covered.isReadable()) {
                mac.update(covered.nioBuffer());
            }
            byte[] tag = new byte[TAG_LENGTH];
            System.arraycopy(mac.doFinal(), 0, tag, 0, TAG_LENGTH);
            return tag;
        }

        /** Whether {@code tag} is the next frame's tag over {@code covered} (compared in constant time). */
        public boolean check(int type, int length, ByteBuf covered, byte[] tag) {
            return MessageDigest.isEqual(next(type, length, covered), tag);
        }
    }
}

package io.fsp.crypto;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.hpke.HPKE;

/**
 * Data sealed to one {@link RecipientKey} with HPKE (RFC 9180, base mode: DHKEM(X25519, HKDF-SHA256),
 * HKDF-SHA256, AES-256-GCM): only the holder of the identity can open it, and any change to the sealed bytes
 * is detected. Layout: {@code "FSPSEAL1"}, the first 8 bytes of the SHA-256 of the recipient's public key (so
 * a wrong identity is named as such, not as damage), HPKE's 32-byte encapsulated key, the ciphertext with its
 * 16-byte tag. The magic and key id are authenticated as associated data; {@code purpose} (e.g. "evacuation
 * manifest") is HPKE's info, so a box sealed for one purpose does not open as another.
 */
public final class SealedBox {
    private static final byte[] MAGIC = "FSPSEAL1".getBytes(StandardCharsets.US_ASCII);
    private static final int KEY_ID = 8;
    private static final int ENC = 32;
    private static final int TAG = 16;
    private static final int HEADER = MAGIC.length + KEY_ID;

    private SealedBox() {
    }

    static HPKE hpke() {
        return new HPKE(HPKE.mode_base, HPKE.kem_X25519_SHA256, HPKE.kdf_HKDF_SHA256, HPKE.aead_AES_GCM256);
    }

    /** Seals {@code plaintext} to {@code recipient} for {@code purpose}. */
    public static byte[] seal(byte[] plaintext, RecipientKey recipient, String purpose) {
        byte[] header = ByteBuffer.allocate(HEADER).put(MAGIC)
                .put(Arrays.copyOf(RecipientKey.sha256(recipient.publicKey()), KEY_ID)).array();
        try {
            byte[][] sealed = hpke().seal(recipient.publicParameter(), info(purpose), header, plaintext, null, null, null);
            byte[] ct = sealed[0];
            byte[] enc = sealed[1];
            return ByteBuffer.allocate(HEADER + enc.length + ct.length).put(header).put(enc).put(ct).array();
        } catch (InvalidCipherTextException e) {
            throw new IllegalStateException("HPKE seal failed", e);
        }
    }

    /**
     * Opens what {@link #seal} sealed for {@code purpose}; throws {@link SealedBoxException} saying whether the
     * bytes are not a sealed box, were sealed to another key, or were altered or damaged.
     */
    public static byte[] open(byte[] sealed, RecipientKey identity, String purpose) throws SealedBoxException {
        if (!identity.hasIdentity()) {
            throw new IllegalArgumentException("opening needs the private identity, not the public key");
        }
        if (sealed.length < HEADER + ENC + TAG || !Arrays.equals(sealed, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw new SealedBoxException("not a sealed FSP file (expected: " + new String(MAGIC, StandardCharsets.US_ASCII)
                    + " and at least " + (HEADER + ENC + TAG) + " bytes)");
        }
        byte[] header = Arrays.copyOf(sealed, HEADER);
        byte[] keyId = Arrays.copyOfRange(sealed, MAGIC.length, HEADER);
        byte[] mine = Arrays.copyOf(RecipientKey.sha256(identity.publicKey()), KEY_ID);
        if (!Arrays.equals(keyId, mine)) {
            throw new SealedBoxException("sealed to another recipient key (key id " + hex(keyId) + "; this identity is "
                    + identity.fingerprint() + ", key id " + hex(mine) + ")");
        }
        byte[] enc = Arrays.copyOfRange(sealed, HEADER, HEADER + ENC);
        byte[] ct = Arrays.copyOfRange(sealed, HEADER + ENC, sealed.length);
        try {
            return hpke().open(enc, identity.keyPair(), info(purpose), header, ct, null, null, null);
        } catch (InvalidCipherTextException | IllegalArgumentException e) {
            throw new SealedBoxException("cannot be opened: altered or damaged since it was sealed, or not sealed as "
                    + purpose);
        }
    }

    private static byte[] info(String purpose) {
        return ("fsp " + purpose).getBytes(StandardCharsets.UTF_8);
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    /** Why a sealed box could not be opened. */
    public static final class SealedBoxException extends Exception {
        SealedBoxException(String message) {
            super(message);
        }
    }
}

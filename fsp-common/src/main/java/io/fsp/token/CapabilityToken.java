package io.fsp.token;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A bearer capability for one transfer at a relay: {@code HMAC-SHA256(tokenKey, version | transferId |
 * expiresAt | scope)}. The server makes it ({@link #issue}) and sends it to the client over the TLS control
 * channel; the relay, which got the token key from the trusted server, checks it ({@link #verify}).
 *
 * <p>Encoded form ({@value #ENCODED_LENGTH} bytes, big-endian): version u8 (=1), transferId u64, expiresAt
 * i64 (epoch milliseconds), scope flags u8, firstSeq i64, lastSeq i64, mac 32. {@link #toText()} is its
 * unpadded base64url form, fit for an FTP reply line.
 */
public record CapabilityToken(TransferId transferId, Instant expiresAt, TokenScope scope, byte[] mac) {
    public static final int VERSION = 1;
    public static final int MAC_LENGTH = 32;
    public static final int ENCODED_LENGTH = 1 + TransferId.LENGTH + 8 + 1 + 8 + 8 + MAC_LENGTH;
    private static final int SIGNED_LENGTH = ENCODED_LENGTH - MAC_LENGTH;

    public CapabilityToken {
        if (mac.length != MAC_LENGTH) {
            throw new IllegalArgumentException("mac: " + mac.length + " bytes (expected: " + MAC_LENGTH + ")");
        }
        // Millisecond precision is what travels, so a decoded token equals the issued one.
        expiresAt = Instant.ofEpochMilli(expiresAt.toEpochMilli());
        mac = mac.clone();
    }

    /** Makes the token for {@code transferId} that expires at {@code expiresAt}. */
    public static CapabilityToken issue(TokenKey key, TransferId transferId, Instant expiresAt, TokenScope scope) {
        Instant exact = Instant.ofEpochMilli(expiresAt.toEpochMilli());
        return new CapabilityToken(transferId, exact, scope, hmac(key, signedPart(transferId, exact, scope)));
    }

    /**
     * Checks that the token was made with {@code key} (constant-time compare), names {@code transferId} and
     * has not expired at {@code now}.
     */
    public void verify(TokenKey key, TransferId expectedTransfer, Instant now) throws TokenException {
        if (!transferId.equals(expectedTransfer)) {
            throw new TokenException(TokenException.Reason.FOREIGN,
                    "token is for transfer " + transferId + " (expected: " + expectedTransfer + ")");
        }
        byte[] expected = hmac(key, signedPart(transferId, expiresAt, scope));
        if (!MessageDigest.isEqual(expected, mac)) {
            throw new TokenException(TokenException.Reason.FORGED, "token MAC does not match (forged or altered)");
        }
        if (!now.isBefore(expiresAt)) {
            throw new TokenException(TokenException.Reason.EXPIRED, "token expired at " + expiresAt);
        }
    }

    public byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(ENCODED_LENGTH);
        b.put(signedPart(transferId, expiresAt, scope)).put(mac);
        return b.array();
    }

    /** Reads {@link #encode()}'s form; anything else is {@link TokenException.Reason#MALFORMED}. */
    public static CapabilityToken decode(byte[] encoded) throws TokenException {
        if (encoded.length != ENCODED_LENGTH) {
            throw new TokenException(TokenException.Reason.MALFORMED,
                    "token: " + encoded.length + " bytes (expected: " + ENCODED_LENGTH + ")");
        }
        ByteBuffer b = ByteBuffer.wrap(encoded);
        int version = b.get() & 0xff;
        if (version != VERSION) {
            throw new TokenException(TokenException.Reason.MALFORMED,
                    "token version: " + version + " (expected: " + VERSION + ")");
        }
        long id = b.getLong();
        long expires = b.getLong();
        int flags = b.get() & 0xff;
        long first = b.getLong();
        long last = b.getLong();
        byte[] mac = new byte[MAC_LENGTH];
        b.get(mac);
        try {
            return new CapabilityToken(new TransferId(id), Instant.ofEpochMilli(expires),
                    TokenScope.of(flags, first, last), mac);
        } catch (IllegalArgumentException | java.time.DateTimeException e) {
            throw new TokenException(TokenException.Reason.MALFORMED, "token: " + e.getMessage());
        }
    }

    public String toText() {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(encode());
    }

    public static CapabilityToken parse(String text) throws TokenException {
        if (text.length() > 2 * ENCODED_LENGTH) {
            throw new TokenException(TokenException.Reason.MALFORMED,
                    "token text: " + text.length() + " characters (expected: <= " + 2 * ENCODED_LENGTH + ")");
        }
        try {
            return decode(Base64.getUrlDecoder().decode(text.trim()));
        } catch (IllegalArgumentException e) {
            throw new TokenException(TokenException.Reason.MALFORMED, "token text: not base64url");
        }
    }

    private static byte[] signedPart(TransferId transferId, Instant expiresAt, TokenScope scope) {
        return ByteBuffer.allocate(SIGNED_LENGTH)
                .put((byte) VERSION)
                .putLong(transferId.value())
                .putLong(expiresAt.toEpochMilli())
                .put((byte) scope.flags())
                .putLong(scope.firstSeq())
                .putLong(scope.lastSeq())
                .array();
    }

    private static byte[] hmac(TokenKey key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key.bytes(), "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    @Override
    public byte[] mac() {
        return mac.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CapabilityToken t && transferId.equals(t.transferId) && expiresAt.equals(t.expiresAt)
                && scope.equals(t.scope) && Arrays.equals(mac, t.mac);
    }

    @Override
    public int hashCode() {
        return transferId.hashCode() * 31 + Arrays.hashCode(mac);
    }

    /** Never prints the MAC: the token is a bearer credential. */
    @Override
    public String toString() {
        return "CapabilityToken[transfer=" + transferId + ", expiresAt=" + expiresAt + ", scope=" + scope + "]";
    }
}

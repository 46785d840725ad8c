package io.fsp.meridian.net;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Stateless proof that a source receives at its address: the cookie for an address is the first 8 bytes of
 * HMAC-SHA256(secret, ip, port, minute), valid in the minute it was issued and the next one. Only a host that
 * receives datagrams sent to the address learns it, so a request carrying it did not come from a forged source.
 * The secret is random per process: a restart makes every cookie stale, and senders fetch a new one.
 * Not thread-safe: one datagram handler uses it from its event loop.
 */
final class ReturnCookies {
    static final long BUCKET_NANOS = 60_000_000_000L;

    private final Mac mac;

    ReturnCookies() {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        try {
            mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /** The cookie {@code source} must send its requests with now. */
    long issue(InetSocketAddress source, long nowNanos) {
        return cookie(source, Math.floorDiv(nowNanos, BUCKET_NANOS));
    }

    /** Whether {@code cookie} is one this endpoint issued to {@code source} in this minute or the one before. */
    boolean valid(InetSocketAddress source, long cookie, long nowNanos) {
        long bucket = Math.floorDiv(nowNanos, BUCKET_NANOS);
        return cookie != 0 && (cookie == cookie(source, bucket) || cookie == cookie(source, bucket - 1));
    }

    private long cookie(InetSocketAddress source, long bucket) {
        byte[] ip = source.getAddress().getAddress();
        mac.update(ip);
        mac.update(ByteBuffer.allocate(10).putShort((short) source.getPort()).putLong(bucket).array());
        long value = ByteBuffer.wrap(mac.doFinal()).getLong();
        return value == 0 ? 1 : value; // 0 means "no cookie" on the wire
    }
}

package io.fsp.client.verify;

import io.fsp.checksum.ChecksumAlgorithm;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A block digest the verifier can compute. Pluggable so that the algorithm negotiated for a transfer
 * (the server digests each block's plaintext with it) is the one the client checks with.
 */
public interface HashAlgorithm {
    /** The name as negotiated, e.g. {@code sha256}. */
    String name();

    Hasher newHasher();

    /** SHA-256, the default. */
    static HashAlgorithm sha256() {
        return of(ChecksumAlgorithm.SHA256);
    }

    /** One of the algorithms of the block format ({@code io.fsp.checksum}). */
    static HashAlgorithm of(ChecksumAlgorithm algorithm) {
        return new ChecksumHash(algorithm);
    }

    /** Any {@link MessageDigest} algorithm of the running JDK ({@code SHA-256}, {@code SHA-1}, {@code MD5}, …). */
    static HashAlgorithm jca(String jcaName) {
        try {
            MessageDigest.getInstance(jcaName);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalArgumentException("digest: " + jcaName + " (expected: an algorithm this JDK provides)", e);
        }
        return new HashAlgorithm() {
            @Override
            public String name() {
                return jcaName;
            }

            @Override
            public Hasher newHasher() {
                MessageDigest md;
                try {
                    md = MessageDigest.getInstance(jcaName);
                } catch (NoSuchAlgorithmException e) {
                    throw new IllegalStateException(e);
                }
                return new Hasher() {
                    @Override
                    public void update(ByteBuffer data) {
                        md.update(data.duplicate());
                    }

                    @Override
                    public byte[] finish() {
                        return md.digest();
                    }
                };
            }

            @Override
            public String toString() {
                return jcaName;
            }
        };
    }
}

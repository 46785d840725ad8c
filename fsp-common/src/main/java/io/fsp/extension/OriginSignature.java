package io.fsp.extension;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;

/**
 * {@code SIG <lines> <base64>} (docs/protocol.md §1, "Evacuation"): the origin server's signature, made with its
 * TLS certificate's private key, over the first {@code lines} announcements of an evacuation, the account that
 * asked and the path it retrieved. A manifest is only as trustworthy as its sealer; with this the collector checks
 * that what it will fetch and verify against is what the server it trusts announced, whoever sealed the manifest.
 * What is signed ({@link #statement}) is UTF-8 text:
 * <pre>
 * fsp origin announcements 1
 * user USER
 * path PATH
 * lines N
 * sha256 HEX        of the first N announcement lines (as ExtensionCodec writes them), each followed by LF
 * </pre>
 */
public record OriginSignature(long lines, byte[] signature) {
    static final String CONTEXT = "fsp origin announcements 1";
    private static final String WORD = "SIG";

    public OriginSignature {
        ExtensionCodec.check("signed lines", lines, 0, Long.MAX_VALUE);
        ExtensionCodec.check("signature bytes", signature.length, 1, ExtensionLimits.MAX_SIGNATURE_BYTES);
        signature = signature.clone();
    }

    @Override
    public byte[] signature() {
        return signature.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OriginSignature s && s.lines == lines && Arrays.equals(s.signature, signature);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(lines) * 31 + Arrays.hashCode(signature);
    }

    @Override
    public String toString() {
        return "OriginSignature[" + lines + " lines]";
    }

    /** Whether a {@code 151} line's text is a signature rather than an {@link Announcement}. */
    public static boolean isSignature(String text) {
        return text.startsWith(WORD + " ");
    }

    /** The line, without {@code 151 }. */
    public String format() {
        return WORD + " " + lines + " " + Base64.getEncoder().encodeToString(signature);
    }

    /** Reads a {@code SIG} line strictly (its canonical form only, at most {@link ExtensionLimits#MAX_SIGNATURE_LINE}). */
    public static OriginSignature parse(String text) {
        if (text.length() > ExtensionLimits.MAX_SIGNATURE_LINE) {
            throw new IllegalArgumentException("SIG: " + text.length() + " characters (expected: <= "
                    + ExtensionLimits.MAX_SIGNATURE_LINE + ")");
        }
        String[] w = text.split(" ", -1);
        if (w.length != 3 || !w[0].equals(WORD)) {
            throw new IllegalArgumentException("SIG: '" + ExtensionCodec.shorten(text) + "' (expected: SIG <lines> <base64>)");
        }
        if (!w[1].matches("0|[1-9][0-9]{0,17}")) {
            throw new IllegalArgumentException("signed lines: '" + ExtensionCodec.shorten(w[1]) + "' (expected: a decimal number)");
        }
        byte[] sig;
        try {
            sig = Base64.getDecoder().decode(w[2]);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("signature: '" + ExtensionCodec.shorten(w[2]) + "' (expected: base64)", e);
        }
        OriginSignature s = new OriginSignature(Long.parseLong(w[1]), sig);
        if (!s.format().equals(text)) {
            throw new IllegalArgumentException("'" + ExtensionCodec.shorten(text) + "': not in canonical form");
        }
        return s;
    }

    /** The bytes signed for {@code lines} announcements whose lines hash to {@code sha256}. */
    public static byte[] statement(String user, String path, long lines, byte[] sha256) {
        if (user.indexOf('\n') >= 0 || user.indexOf('\r') >= 0 || path.indexOf('\n') >= 0 || path.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("user or path with a line end (expected: none)");
        }
        return (CONTEXT + "\nuser " + user + "\npath " + path + "\nlines " + lines + "\nsha256 "
                + HexFormat.of().formatHex(sha256) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /** Signs the statement with the server's private key (EC, RSA or Ed25519). */
    public static OriginSignature sign(PrivateKey key, String user, String path, long lines, byte[] sha256) {
        try {
            Signature s = Signature.getInstance(algorithm(key.getAlgorithm()));
            s.initSign(key);
            s.update(statement(user, path, lines, sha256));
            return new OriginSignature(lines, s.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign with the server's " + key.getAlgorithm() + " key", e);
        }
    }

    /**
     * Whether this signature is {@code certificate}'s key's over the statement; false for any other key, statement
     * or a damaged signature, never an exception.
     */
    public boolean verifies(X509Certificate certificate, String user, String path, byte[] sha256) {
        PublicKey key = certificate.getPublicKey();
        try {
            Signature s = Signature.getInstance(algorithm(key.getAlgorithm()));
            s.initVerify(key);
            s.update(statement(user, path, lines, sha256));
            return s.verify(signature);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return false;
        }
    }

    /** Whether a key of this algorithm ({@link java.security.Key#getAlgorithm}) can sign: EC, RSA or Ed25519. */
    public static boolean canSign(String keyAlgorithm) {
        try {
            algorithm(keyAlgorithm);
            return true;
        } catch (NoSuchAlgorithmException e) {
            return false;
        }
    }

    /** The signature scheme of a key: ECDSA and RSA (PKCS #1 v1.5) with SHA-256, or Ed25519. */
    static String algorithm(String keyAlgorithm) throws NoSuchAlgorithmException {
        return switch (keyAlgorithm) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            default -> throw new NoSuchAlgorithmException("a " + keyAlgorithm + " key (expected: EC, RSA or Ed25519)");
        };
    }

    /** The running SHA-256 over announcement lines (each followed by LF) that a signature covers. */
    public static final class Lines {
        private final MessageDigest md;
        private long count;

        public Lines() {
            try {
                md = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every Java runtime has SHA-256", e);
            }
        }

        /** Adds one announcement line, as {@link ExtensionCodec#format} writes it. */
        public void add(String line) {
            md.update(line.getBytes(StandardCharsets.UTF_8));
            md.update((byte) '\n');
            count++;
        }

        public long count() {
            return count;
        }

        /** The digest of the lines so far (more may be added afterwards). */
        public byte[] sha256() {
            try {
                return ((MessageDigest) md.clone()).digest();
            } catch (CloneNotSupportedException e) {
                throw new IllegalStateException("SHA-256 digests clone on every Java runtime", e);
            }
        }
    }
}

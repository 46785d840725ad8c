package io.fsp.extension;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * {@code SIG <lines> <state> <created> <retain-until> <base64>} (docs/protocol.md §1, "Evacuation"): the origin
 * server's signature, made with its TLS certificate's private key, over the first {@code lines} announcements of an
 * evacuation, the account that asked, the path it retrieved, when the evacuation began, until when the relays keep
 * it and how it stood ({@link Terms}). A manifest is only as trustworthy as its sealer; with this the collector
 * checks that what it will fetch and verify against is what the server it trusts announced, for the evacuation it
 * expects, whoever sealed the manifest. What is signed ({@link #statement}) is UTF-8 text:
 * <pre>
 * fsp origin evacuation 2
 * user USER
 * path PATH
 * created TIME          UTC, whole seconds (2026-11-24T08:00:00Z)
 * retain-until TIME
 * state running|complete|partial
 * lines N
 * sha256 HEX            of the first N announcement lines (as ExtensionCodec writes them), each followed by LF
 * </pre>
 * Version 1 ({@code SIG <lines> <base64>}, {@code fsp origin announcements 1}: account, path and lines only, no
 * {@link Terms}) is what older origins sent; it is still read and verified, never made.
 */
public record OriginSignature(long lines, Terms terms, byte[] signature) {
    static final String CONTEXT_1 = "fsp origin announcements 1";
    static final String CONTEXT = "fsp origin evacuation 2";
    private static final String WORD = "SIG";
    /** The states an origin signs: striping goes on, every block was placed (the 226 follows), striping failed. */
    public static final String RUNNING = "running";
    public static final String COMPLETE = "complete";
    public static final String PARTIAL = "partial";

    /**
     * What identifies an evacuation besides its account and path, signed with its lines (version 2).
     *
     * @param created when the origin took the FRET (whole seconds)
     * @param retainUntil until when the relays keep its blocks (whole seconds)
     * @param state {@link #RUNNING}, {@link #COMPLETE} or {@link #PARTIAL}
     */
    public record Terms(Instant created, Instant retainUntil, String state) {
        public Terms {
            Objects.requireNonNull(created, "created");
            Objects.requireNonNull(retainUntil, "retainUntil");
            if (created.getNano() != 0 || retainUntil.getNano() != 0) {
                throw new IllegalArgumentException("created " + created + ", retain-until " + retainUntil
                        + " (expected: whole seconds)");
            }
            if (!List.of(RUNNING, COMPLETE, PARTIAL).contains(state)) {
                throw new IllegalArgumentException("state: '" + (state == null ? null : ExtensionCodec.shorten(state))
                        + "' (expected: running, complete or partial)");
            }
        }
    }

    public OriginSignature {
        ExtensionCodec.check("signed lines", lines, 0, Long.MAX_VALUE);
        ExtensionCodec.check("signature bytes", signature.length, 1, ExtensionLimits.MAX_SIGNATURE_BYTES);
        signature = signature.clone();
    }

    /** A version 1 signature (an older origin's): lines, account and path only. */
    public OriginSignature(long lines, byte[] signature) {
        this(lines, null, signature);
    }

    /** 2, or 1 for an older origin's signature, which signs no {@link Terms}. */
    public int version() {
        return terms == null ? 1 : 2;
    }

    /** The same signature read with other terms: those a manifest claims, to be {@link #verifies verified}. */
    public OriginSignature withTerms(Terms t) {
        return new OriginSignature(lines, Objects.requireNonNull(t, "terms"), signature);
    }

    @Override
    public byte[] signature() {
        return signature.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OriginSignature s && s.lines == lines && Objects.equals(s.terms, terms)
                && Arrays.equals(s.signature, signature);
    }

    @Override
    public int hashCode() {
        return (Long.hashCode(lines) * 31 + Objects.hashCode(terms)) * 31 + Arrays.hashCode(signature);
    }

    @Override
    public String toString() {
        return "OriginSignature[" + lines + " lines" + (terms == null ? ", version 1" : ", " + terms) + "]";
    }

    /** Whether a {@code 151} line's text is a signature rather than an {@link Announcement}. */
    public static boolean isSignature(String text) {
        return text.startsWith(WORD + " ");
    }

    /** The line, without {@code 151 }. */
    public String format() {
        String base64 = Base64.getEncoder().encodeToString(signature);
        return terms == null ? WORD + " " + lines + " " + base64
                : WORD + " " + lines + " " + terms.state() + " " + terms.created() + " " + terms.retainUntil() + " " + base64;
    }

    /**
     * Reads a {@code SIG} line strictly (its canonical form only, at most {@link ExtensionLimits#MAX_SIGNATURE_LINE}):
     * version 2, or version 1 as older origins send it.
     */
    public static OriginSignature parse(String text) {
        if (text.length() > ExtensionLimits.MAX_SIGNATURE_LINE) {
            throw new IllegalArgumentException("SIG: " + text.length() + " characters (expected: <= "
                    + ExtensionLimits.MAX_SIGNATURE_LINE + ")");
        }
        String[] w = text.split(" ", -1);
        if ((w.length != 6 && w.length != 3) || !w[0].equals(WORD)) {
            throw new IllegalArgumentException("SIG: '" + ExtensionCodec.shorten(text)
                    + "' (expected: SIG <lines> <state> <created> <retain-until> <base64>)");
        }
        if (!w[1].matches("0|[1-9][0-9]{0,17}")) {
            throw new IllegalArgumentException("signed lines: '" + ExtensionCodec.shorten(w[1]) + "' (expected: a decimal number)");
        }
        Terms terms = null;
        if (w.length == 6) {
            try {
                terms = new Terms(Instant.parse(w[3]), Instant.parse(w[4]), w[2]);
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("SIG: created '" + ExtensionCodec.shorten(w[3]) + "', retain-until '"
                        + ExtensionCodec.shorten(w[4]) + "' (expected: UTC times in whole seconds)", e);
            }
        }
        String base64 = w[w.length - 1];
        byte[] sig;
        try {
            sig = Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("signature: '" + ExtensionCodec.shorten(base64) + "' (expected: base64)", e);
        }
        OriginSignature s = new OriginSignature(Long.parseLong(w[1]), terms, sig);
        if (!s.format().equals(text)) {
            throw new IllegalArgumentException("'" + ExtensionCodec.shorten(text) + "': not in canonical form");
        }
        return s;
    }

    /** The bytes a version 1 signature signs, for {@code lines} announcements whose lines hash to {@code sha256}. */
    public static byte[] statement(String user, String path, long lines, byte[] sha256) {
        checkOneLine(user, path);
        return (CONTEXT_1 + "\nuser " + user + "\npath " + path + "\nlines " + lines + "\nsha256 "
                + HexFormat.of().formatHex(sha256) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    /** The bytes signed for an evacuation with {@code terms} and {@code lines} announcements hashing to {@code sha256}. */
    public static byte[] statement(String user, String path, Terms terms, long lines, byte[] sha256) {
        checkOneLine(user, path);
        return (CONTEXT + "\nuser " + user + "\npath " + path + "\ncreated " + terms.created() + "\nretain-until "
                + terms.retainUntil() + "\nstate " + terms.state() + "\nlines " + lines + "\nsha256 "
                + HexFormat.of().formatHex(sha256) + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private static void checkOneLine(String user, String path) {
        if (user.indexOf('\n') >= 0 || user.indexOf('\r') >= 0 || path.indexOf('\n') >= 0 || path.indexOf('\r') >= 0) {
            throw new IllegalArgumentException("user or path with a line end (expected: none)");
        }
    }

    /** Signs the statement (version 2) with the server's private key (EC, RSA or Ed25519). */
    public static OriginSignature sign(PrivateKey key, String user, String path, Terms terms, long lines, byte[] sha256) {
        try {
            Signature s = Signature.getInstance(algorithm(key.getAlgorithm()));
            s.initSign(key);
            s.update(statement(user, path, terms, lines, sha256));
            return new OriginSignature(lines, terms, s.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign with the server's " + key.getAlgorithm() + " key", e);
        }
    }

    /**
     * Whether this signature is {@code certificate}'s key's over the statement (with this signature's {@link Terms},
     * none in version 1); false for any other key, statement or a damaged signature, never an exception.
     */
    public boolean verifies(X509Certificate certificate, String user, String path, byte[] sha256) {
        PublicKey key = certificate.getPublicKey();
        try {
            Signature s = Signature.getInstance(algorithm(key.getAlgorithm()));
            s.initVerify(key);
            s.update(terms == null ? statement(user, path, lines, sha256) : statement(user, path, terms, lines, sha256));
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

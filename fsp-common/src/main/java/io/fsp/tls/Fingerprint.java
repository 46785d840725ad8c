package io.fsp.tls;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;

/**
 * SHA-256 fingerprint of a DER-encoded certificate, written as colon-separated upper-case hex
 * ({@code AB:CD:…}), the form {@code openssl x509 -fingerprint -sha256} prints.
 */
public record Fingerprint(byte[] sha256) {
    private static final int LENGTH = 32;
    private static final HexFormat COLON_HEX = HexFormat.ofDelimiter(":").withUpperCase();

    public Fingerprint {
        if (sha256.length != LENGTH) {
            throw new IllegalArgumentException("fingerprint: " + sha256.length + " bytes (expected: " + LENGTH + ")");
        }
        sha256 = sha256.clone();
    }

    public static Fingerprint of(X509Certificate certificate) {
        try {
            return new Fingerprint(MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded()));
        } catch (CertificateEncodingException | NoSuchAlgorithmException e) {
            throw new IllegalStateException("cannot fingerprint certificate", e);
        }
    }

    /** Parses {@code AB:CD:…}, {@code ab:cd:…}, or plain hex, with an optional {@code sha256:} prefix. */
    public static Fingerprint parse(String text) {
        String hex = text.trim();
        if (hex.toLowerCase(Locale.ROOT).startsWith("sha256:")) {
            hex = hex.substring("sha256:".length());
        }
        hex = hex.replace(":", "");
        for (int i = 0; i < hex.length(); i++) { // a character copied with it (a bracket, a quote) is named
            if (!HexFormat.isHexDigit(hex.charAt(i))) {
                throw new IllegalArgumentException("fingerprint '" + text + "': '" + hex.charAt(i)
                        + "' is not a hex digit (expected: the 32 bytes of SHA-256 as hex, AB:CD:…)");
            }
        }
        if (hex.length() != LENGTH * 2) {
            throw new IllegalArgumentException("fingerprint '" + text + "': " + hex.length()
                    + " hex digits (expected: 64, the 32 bytes of SHA-256)");
        }
        return new Fingerprint(HexFormat.of().parseHex(hex));
    }

    @Override
    public byte[] sha256() {
        return sha256.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Fingerprint f && Arrays.equals(sha256, f.sha256);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(sha256);
    }

    @Override
    public String toString() {
        return COLON_HEX.formatHex(sha256);
    }
}

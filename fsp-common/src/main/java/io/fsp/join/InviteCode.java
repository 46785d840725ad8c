package io.fsp.join;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * A one-time join code, {@code ABCD-EFGH-JKLM-NPQR}: 16 base32 characters (RFC 4648's alphabet, read over the phone
 * without case), the first 4 the invite's id (20 bits, sent in the clear so the server knows which invite), the other
 * 12 its secret (60 bits), which never leaves either side: both key the exchange with {@link #verifier()}.
 */
public record InviteCode(String id, String secret) {
    static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    public static final int ID_CHARS = 4;
    static final int SECRET_CHARS = 12;
    private static final SecureRandom RANDOM = new SecureRandom();

    public InviteCode {
        checkChars("invite id", id, ID_CHARS);
        checkChars("invite secret", secret, SECRET_CHARS);
    }

    public static InviteCode generate() {
        return new InviteCode(random(ID_CHARS), random(SECRET_CHARS));
    }

    /** Reads a code as typed: case, dashes and spaces do not matter. */
    public static InviteCode parse(String text) {
        String s = text.replace("-", "").replace(" ", "").toUpperCase(java.util.Locale.ROOT);
        if (s.length() != ID_CHARS + SECRET_CHARS || !valid(s)) {
            throw new IllegalArgumentException("join code: expected 16 letters A-Z and digits 2-7, as XXXX-XXXX-XXXX-XXXX"
                    + " (got " + text.length() + " characters)");
        }
        return new InviteCode(s.substring(0, ID_CHARS), s.substring(ID_CHARS));
    }

    /** Whether {@code id} is an invite id as the JOIN verb carries it. */
    public static boolean isId(String id) {
        return id.length() == ID_CHARS && valid(id);
    }

    /**
     * What the server stores instead of the code and what both sides key J-PAKE with: a hash of id and secret, so
     * that the state directory never holds a code that could be read out over the phone again.
     */
    public String verifier() {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256")
                    .digest(("fsp-join-v1\0" + id + "\0" + secret).getBytes(StandardCharsets.US_ASCII));
            return HexFormat.of().formatHex(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        String s = id + secret;
        return s.substring(0, 4) + "-" + s.substring(4, 8) + "-" + s.substring(8, 12) + "-" + s.substring(12);
    }

    private static String random(int n) {
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            b.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
        }
        return b.toString();
    }

    private static boolean valid(String s) {
        return s.chars().allMatch(c -> ALPHABET.indexOf(c) >= 0);
    }

    private static void checkChars(String what, String s, int n) {
        if (s.length() != n || !valid(s)) {
            throw new IllegalArgumentException(what + ": expected " + n + " characters A-Z, 2-7");
        }
    }
}

package io.fsp.crypto;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.bouncycastle.crypto.AsymmetricCipherKeyPair;
import org.bouncycastle.crypto.hpke.HPKE;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;

/**
 * An X25519 key pair to which data is sealed (an evacuation manifest, sealed at the threatened site, opened at
 * the safe one): the public half seals and may be carried anywhere; the private half, the identity, opens and
 * never leaves the safe site. Text forms, one line each: {@code fsp-x25519 BASE64 [comment]} for the public
 * key (as OpenSSH writes public keys) and {@code fsp-x25519-identity BASE64-PRIVATE BASE64-PUBLIC} for the
 * identity, in a file only its owner may read.
 */
public final class RecipientKey {
    static final String PUBLIC_TAG = "fsp-x25519";
    static final String IDENTITY_TAG = "fsp-x25519-identity";
    private static final int KEY_BYTES = 32;
    private static final int MAX_LINE = 4096;

    private final byte[] publicKey;
    private final byte[] privateKey; // null: public half only
    private final String comment;

    private RecipientKey(byte[] publicKey, byte[] privateKey, String comment) {
        this.publicKey = publicKey.clone();
        this.privateKey = privateKey == null ? null : privateKey.clone();
        this.comment = comment;
        keyPair(); // checks that the halves decode and belong together
    }

    /** A fresh key pair; {@code comment} (may be empty) travels with the public key to tell keys apart. */
    public static RecipientKey generate(String comment) {
        HPKE hpke = SealedBox.hpke();
        AsymmetricCipherKeyPair pair = hpke.generatePrivateKey();
        return new RecipientKey(hpke.serializePublicKey(pair.getPublic()), hpke.serializePrivateKey(pair.getPrivate()),
                comment.strip());
    }

    /** Parses a public key line; throws {@link IllegalArgumentException} naming what is wrong. */
    public static RecipientKey parsePublic(String line) {
        String[] w = line.strip().split("\\s+", 3);
        if (w.length < 2 || !w[0].equals(PUBLIC_TAG)) {
            throw new IllegalArgumentException("recipient key: expected '" + PUBLIC_TAG + " BASE64 [comment]'"
                    + (w[0].equals(IDENTITY_TAG) ? " (this is a private identity: give its public key instead)" : ""));
        }
        return new RecipientKey(decode(w[1], "public key"), null, w.length == 3 ? w[2] : "");
    }

    /** Reads a public key file (its first non-empty line). */
    public static RecipientKey readPublic(Path file) throws IOException {
        return parsePublic(firstLine(file));
    }

    /** Reads an identity file; refused if its group or others may read it. */
    public static RecipientKey readIdentity(Path file) throws IOException {
        KeyFiles.refuseIfOthersCanRead(file);
        String[] w = firstLine(file).split("\\s+");
        if (w.length != 3 || !w[0].equals(IDENTITY_TAG)) {
            throw new IOException(file + ": not an FSP identity (expected: '" + IDENTITY_TAG + " PRIVATE PUBLIC', as"
                    + " 'fsp keygen' writes it)");
        }
        try {
            return new RecipientKey(decode(w[2], "public key"), decode(w[1], "private key"), "");
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    /** Writes the identity, owner-only; an existing file is replaced only if {@code replace}. */
    public void writeIdentity(Path file, boolean replace) throws IOException {
        if (privateKey == null) {
            throw new IllegalStateException("a public key has no identity to write");
        }
        Base64.Encoder b64 = Base64.getEncoder();
        String line = IDENTITY_TAG + " " + b64.encodeToString(privateKey) + " " + b64.encodeToString(publicKey) + "\n";
        KeyFiles.write(file, true, replace, w -> w.write(line));
    }

    /** Writes the public key line; an existing file is replaced only if {@code replace}. */
    public void writePublic(Path file, boolean replace) throws IOException {
        KeyFiles.write(file, false, replace, w -> w.write(publicLine() + "\n"));
    }

    /** {@code fsp-x25519 BASE64 [comment]}. */
    public String publicLine() {
        return PUBLIC_TAG + " " + Base64.getEncoder().encodeToString(publicKey) + (comment.isEmpty() ? "" : " " + comment);
    }

    /** {@code SHA256:} and the unpadded Base64 of the public key's SHA-256, as OpenSSH shows fingerprints. */
    public String fingerprint() {
        return "SHA256:" + Base64.getEncoder().withoutPadding().encodeToString(sha256(publicKey));
    }

    public boolean hasIdentity() {
        return privateKey != null;
    }

    byte[] publicKey() {
        return publicKey.clone();
    }

    AsymmetricKeyParameter publicParameter() {
        return SealedBox.hpke().deserializePublicKey(publicKey);
    }

    AsymmetricCipherKeyPair keyPair() {
        HPKE hpke = SealedBox.hpke();
        if (privateKey == null) {
            hpke.deserializePublicKey(publicKey);
            return null;
        }
        AsymmetricCipherKeyPair pair = hpke.deserializePrivateKey(privateKey, publicKey);
        AsymmetricCipherKeyPair derived = hpke.deserializePrivateKey(privateKey, null);
        if (!Arrays.equals(hpke.serializePublicKey(derived.getPublic()), publicKey)) {
            throw new IllegalArgumentException("the private and public keys do not belong together");
        }
        return pair;
    }

    static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] decode(String text, String what) {
        byte[] b;
        try {
            b = Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + ": not Base64");
        }
        if (b.length != KEY_BYTES) {
            throw new IllegalArgumentException(what + ": " + b.length + " bytes (expected: " + KEY_BYTES + ")");
        }
        return b;
    }

    private static String firstLine(Path file) throws IOException {
        if (Files.size(file) > MAX_LINE) {
            throw new IOException(file + ": " + Files.size(file) + " bytes (expected: one key line)");
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
        Optional<String> first = lines.stream().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).findFirst();
        return first.orElseThrow(() -> new IOException(file + ": empty (expected: a key line)"));
    }

    @Override
    public String toString() {
        return "recipient " + fingerprint();
    }
}

package io.fsp.tls;

import io.fsp.crypto.KeyFiles;
import java.io.IOException;
import java.io.Reader;
import java.math.BigInteger;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.util.io.pem.PemGenerationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;

/**
 * Self-signed certificates (EC P-256, made with Bouncy Castle) and PEM files. A server or relay without
 * a configured certificate generates one at first start and keeps it, so its fingerprint stays the same
 * across restarts and can be pinned by clients and relays.
 */
public final class Certificates {
    private static final Duration VALIDITY = Duration.ofDays(3650);

    private Certificates() {
    }

    /** Generates an EC P-256 key and a self-signed certificate for {@code commonName}. */
    public static KeyMaterial selfSigned(String commonName) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
            KeyPair keys = generator.generateKeyPair();
            X500Name subject = new X500Name("CN=" + commonName.replaceAll("[,=+<>#;\"\\\\]", "_"));
            Instant now = Instant.now();
            JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
                    subject, new BigInteger(127, new SecureRandom()),
                    Date.from(now.minus(Duration.ofDays(1))), Date.from(now.plus(VALIDITY)),
                    subject, keys.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                new GeneralName(GeneralName.dNSName, "localhost"),
                new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                new GeneralName(GeneralName.iPAddress, "::1")}));
            X509CertificateHolder holder = builder.build(
                    new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate()));
            X509Certificate certificate = new JcaX509CertificateConverter().getCertificate(holder);
            return new KeyMaterial(keys.getPrivate(), List.of(certificate));
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException("cannot generate a self-signed certificate", e);
        }
    }

    /**
     * Loads {@code certFile} and {@code keyFile} if both exist; otherwise generates a self-signed pair and
     * writes them there (the key readable by the owner only) before returning it. Generating holds a lock on
     * {@code .certificate.lock} beside them: processes that start on a new state directory together (a daemon and
     * {@code fingerprint}, run at once to pass the fingerprint on) would otherwise each write a pair, and one could
     * serve a key whose certificate is no longer the one on disk, or leave the certificate of one and the key of the
     * other. The later ones wait, then load what the first wrote.
     */
    public static KeyMaterial loadOrCreate(Path certFile, Path keyFile, String commonName) throws IOException {
        if (Files.exists(certFile) && Files.exists(keyFile)) {
            return load(certFile, keyFile);
        }
        Path lockFile = certFile.toAbsolutePath().resolveSibling(".certificate.lock");
        Files.createDirectories(lockFile.getParent());
        synchronized (Certificates.class) { // a file lock is the process's: threads of one wait here
            try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock ignored = ch.lock()) {
                if (Files.exists(certFile) && Files.exists(keyFile)) {
                    return load(certFile, keyFile); // written while this process waited
                }
                KeyMaterial generated = selfSigned(commonName);
                write(generated, certFile, keyFile);
                return generated;
            }
        }
    }

    /** Reads a PEM certificate chain (leaf first) and a PEM private key (PKCS#8 or traditional). */
    public static KeyMaterial load(Path certFile, Path keyFile) throws IOException {
        List<X509Certificate> chain = new ArrayList<>();
        try (PEMParser parser = new PEMParser(Files.newBufferedReader(certFile, StandardCharsets.US_ASCII))) {
            JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
            for (Object o; (o = parser.readObject()) != null; ) {
                if (o instanceof X509CertificateHolder holder) {
                    chain.add(converter.getCertificate(holder));
                }
            }
        } catch (GeneralSecurityException e) {
            throw new IOException(certFile + ": not a valid certificate", e);
        }
        if (chain.isEmpty()) {
            throw new IOException(certFile + ": no PEM certificate found");
        }
        return new KeyMaterial(readPrivateKey(keyFile), chain);
    }

    private static PrivateKey readPrivateKey(Path keyFile) throws IOException {
        KeyFiles.refuseIfOthersCanRead(keyFile);
        try (Reader reader = Files.newBufferedReader(keyFile, StandardCharsets.US_ASCII);
             PEMParser parser = new PEMParser(reader)) {
            Object o = parser.readObject();
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            if (o instanceof PEMKeyPair pair) {
                return converter.getKeyPair(pair).getPrivate();
            }
            if (o instanceof PrivateKeyInfo info) {
                return converter.getPrivateKey(info);
            }
            throw new IOException(keyFile + ": no unencrypted PEM private key found");
        }
    }

    /** Writes the chain and key as PEM; each file is written aside and moved into place. */
    public static void write(KeyMaterial material, Path certFile, Path keyFile) throws IOException {
        writePem(certFile, material.chain(), false);
        // PKCS#8: the traditional EC form may omit the public key, which some readers need.
        try {
            writePem(keyFile, List.of(new JcaPKCS8Generator(material.privateKey(), null)), true);
        } catch (PemGenerationException e) {
            throw new IOException("cannot encode the private key", e);
        }
    }

    private static void writePem(Path file, List<?> objects, boolean secret) throws IOException {
        KeyFiles.write(file, secret, true, w -> {
            JcaPEMWriter pem = new JcaPEMWriter(w);
            for (Object o : objects) {
                pem.writeObject(o);
            }
            pem.flush();
        });
    }
}

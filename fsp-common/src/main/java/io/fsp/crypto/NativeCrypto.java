package io.fsp.crypto;

import com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider;
import io.fsp.program.WarmUp;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.Security;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import javax.crypto.Cipher;
import org.conscrypt.Conscrypt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Native crypto for the block data path, used by name and never installed ahead of the JDK's providers.
 * Why: the JDK's AES-GCM and SHA-256 are fast only once the JIT has compiled their intrinsics, and a new
 * {@code fsp get} process moves hundreds of megabytes before that happens, while native code runs at full speed
 * from the first block.
 *
 * <ul>
 *   <li>AES-GCM: Conscrypt (BoringSSL), which seals and opens direct buffers in place. Amazon's ACCP is as
 *       fast on heap arrays but copies direct buffers through small heap arrays.</li>
 *   <li>TLS for blocking sockets (the client's FTP control connection): Conscrypt's {@code SSLContext}.</li>
 *   <li>SHA-2, SHA-1, MD5: ACCP (AWS-LC, with the CPU's SHA instructions), on direct buffers from the first
 *       block; Conscrypt's digests do not use those instructions.</li>
 * </ul>
 *
 * Where a native library does not load (another platform), the JDK's implementation serves, with the same
 * bytes on the wire. System property {@code fsp.crypto=jdk} keeps the JDK's on purpose.
 */
public final class NativeCrypto {
    private static final Logger log = LoggerFactory.getLogger(NativeCrypto.class);
    private static final CompletableFuture<Loaded> CONSCRYPT = new CompletableFuture<>();
    private static final CompletableFuture<Loaded> ACCP = new CompletableFuture<>();
    private static final Object LOCK = new Object();
    private static boolean started;

    /** A native provider, or none (the JDK's serves), and what to call it in logs and summaries. */
    private record Loaded(Provider provider, String description) {
        static Loaded jdk(String why) {
            return new Loaded(null, "JDK (" + why + ")");
        }
    }

    private NativeCrypto() {
    }

    /**
     * Loads the native libraries as two warm-ups ({@link WarmUp}; linking them takes a noticeable part of a short
     * process's life), so that a process can parse its arguments and open its first connection meanwhile;
     * returns at once.
     * Netty's BoringSSL (relay links) is loaded beside Conscrypt. Idempotent.
     */
    public static void loadInBackground() {
        synchronized (LOCK) {
            if (started) {
                return;
            }
            started = true;
        }
        boolean jdk = "jdk".equals(System.getProperty("fsp.crypto", ""));
        load("native crypto (Conscrypt)", CONSCRYPT, jdk ? () -> Loaded.jdk("fsp.crypto=jdk") : NativeCrypto::conscrypt,
                () -> io.netty.handler.ssl.OpenSsl.isAvailable()); // relay links' TLS, needed next
        load("native crypto (ACCP)", ACCP, jdk ? () -> Loaded.jdk("fsp.crypto=jdk") : NativeCrypto::accp, () -> { });
        CONSCRYPT.thenAcceptBoth(ACCP, (aes, digests) ->
                log.info("crypto: AES-GCM {}, digests {}", aes.description(), digests.description()));
    }

    /** Completes {@code into} as a warm-up, whatever happens there (a waiting caller never hangs). */
    private static void load(String what, CompletableFuture<Loaded> into, java.util.function.Supplier<Loaded> loader,
                             Runnable then) {
        WarmUp.inBackground(what, () -> {
            try {
                into.complete(loader.get());
            } catch (Throwable e) {
                into.complete(Loaded.jdk("not loaded: " + e));
            }
            then.run();
        });
    }

    /** The native AES-GCM provider, if it loads here; waits for {@link #loadInBackground()} to finish. */
    public static Optional<Provider> aesGcm() {
        loadInBackground();
        return Optional.ofNullable(CONSCRYPT.join().provider());
    }

    /**
     * The provider of native TLS for blocking sockets (Conscrypt's {@code SSLContext}), if it loads here: a
     * client's TLS handshake in native code instead of the JDK's cold TLS stack.
     */
    public static Optional<Provider> tls() {
        return aesGcm();
    }

    /**
     * An AES-GCM cipher for authenticating bytes without encrypting them (GMAC: all of them associated data), native
     * where it loads: ACCP takes associated data from direct buffers at 2-3 GB/s from the first call, Conscrypt at
     * about 1.7, the JDK's at under 0.1.
     */
    public static Cipher gmac() throws GeneralSecurityException {
        loadInBackground();
        Provider p = ACCP.join().provider();
        if (p == null) {
            p = CONSCRYPT.join().provider();
        }
        return p != null ? Cipher.getInstance("AES/GCM/NoPadding", p) : Cipher.getInstance("AES/GCM/NoPadding");
    }

    /** A {@link MessageDigest} ({@code SHA-256}, {@code SHA-1}, {@code MD5}, …): native where it loads, else the JDK's. */
    public static MessageDigest messageDigest(String algorithm) throws NoSuchAlgorithmException {
        loadInBackground();
        Provider p = ACCP.join().provider();
        if (p != null) {
            try {
                return MessageDigest.getInstance(algorithm, p);
            } catch (NoSuchAlgorithmException e) {
                // not one the native provider has: the JDK's below
            }
        }
        return MessageDigest.getInstance(algorithm);
    }

    /**
     * Puts the native digest provider (ACCP) first among the JCA providers, so that the JDK's own TLS engine (the
     * FTP server's control and data channels) seals and opens its records with AWS-LC's AES-GCM: on heap arrays,
     * as JSSE hands them over, in one native call per record, fast from a server's first connection on.
     * Waits for {@link #loadInBackground()}; does nothing where ACCP did not load.
     *
     * @return whether it was installed
     */
    public static boolean preferForJdkTls() {
        loadInBackground();
        Loaded accp = ACCP.join();
        if (accp.provider() == null) {
            return false;
        }
        synchronized (LOCK) {
            if (Security.getProviders()[0] != accp.provider()) {
                Security.insertProviderAt(accp.provider(), 1);
                log.info("JDK TLS: AES-GCM and key exchange from {}", accp.description());
            }
        }
        return true;
    }

    /** What serves AES-GCM and the digests in this JVM, for logs and summaries. */
    public static String description() {
        loadInBackground();
        return "AES-GCM " + CONSCRYPT.join().description() + ", digests " + ACCP.join().description();
    }

    private static Loaded conscrypt() {
        if (!Conscrypt.isAvailable()) {
            return Loaded.jdk("Conscrypt: no native library for this platform");
        }
        Conscrypt.Version v = Conscrypt.version();
        return new Loaded(Conscrypt.newProviderBuilder().setName("FspConscrypt").provideTrustManager(false).build(),
                "BoringSSL (Conscrypt " + v.major() + "." + v.minor() + "." + v.patch() + ")");
    }

    private static Loaded accp() {
        AmazonCorrettoCryptoProvider accp = AmazonCorrettoCryptoProvider.INSTANCE;
        if (accp.getLoadingError() != null) {
            return Loaded.jdk("ACCP not loaded: " + accp.getLoadingError());
        }
        return new Loaded(accp, accp.getAwsLcVersionStr() + " (ACCP " + accp.getVersionStr() + ")");
    }
}

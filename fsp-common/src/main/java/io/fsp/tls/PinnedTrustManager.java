package io.fsp.tls;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Set;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Trusts a peer exactly when the SHA-256 fingerprint of its leaf certificate is one of a fixed set, the
 * way SSH trusts host keys. FSP peers are pinned by the fingerprint the server or relay prints at start,
 * so no certificate authority is involved. {@link #any()} accepts every peer (the client's
 * {@code --insecure}); it still encrypts, but does not authenticate.
 */
public final class PinnedTrustManager extends X509ExtendedTrustManager {
    private final Supplier<Set<Fingerprint>> pinned;
    private final boolean acceptAny;

    private PinnedTrustManager(Supplier<Set<Fingerprint>> pinned, boolean acceptAny) {
        this.pinned = pinned;
        this.acceptAny = acceptAny;
    }

    public static PinnedTrustManager of(Set<Fingerprint> pinned) {
        if (pinned.isEmpty()) {
            throw new IllegalArgumentException("pinned fingerprints: empty (expected: at least one)");
        }
        Set<Fingerprint> fixed = Set.copyOf(pinned);
        return new PinnedTrustManager(() -> fixed, false);
    }

    /**
     * Trusts the fingerprints {@code pinned} gives at each handshake, which may change while a context uses it (a
     * relay that a server joins) and may be empty (then no peer is trusted).
     */
    public static PinnedTrustManager live(Supplier<Set<Fingerprint>> pinned) {
        return new PinnedTrustManager(pinned, false);
    }

    public static PinnedTrustManager any() {
        return new PinnedTrustManager(Set::of, true);
    }

    private void check(X509Certificate[] chain) throws CertificateException {
        if (chain == null || chain.length == 0) {
            throw new CertificateException("peer presented no certificate");
        }
        if (acceptAny) {
            return;
        }
        Fingerprint presented = Fingerprint.of(chain[0]);
        Set<Fingerprint> trusted = pinned.get();
        if (!trusted.contains(presented)) {
            throw new CertificateException("peer certificate sha256 " + presented + " is not trusted"
                    + " (expected one of: " + trusted + ")");
        }
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
        check(chain);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        check(chain);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
        check(chain);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
    }
}

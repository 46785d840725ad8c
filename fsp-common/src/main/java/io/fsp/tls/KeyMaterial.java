package io.fsp.tls;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

/** A private key with its certificate chain (leaf first), as a TLS endpoint presents them. */
public record KeyMaterial(PrivateKey privateKey, List<X509Certificate> chain) {
    public KeyMaterial {
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("chain: empty (expected: at least the leaf certificate)");
        }
        chain = List.copyOf(chain);
    }

    public X509Certificate certificate() {
        return chain.get(0);
    }

    public Fingerprint fingerprint() {
        return Fingerprint.of(certificate());
    }
}

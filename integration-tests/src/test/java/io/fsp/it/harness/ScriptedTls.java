package io.fsp.it.harness;

import io.fsp.tls.KeyMaterial;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/** The TLS of a scripted server: a JDK context presenting {@code key}, for tests that play a server line by line. */
public final class ScriptedTls {
    private ScriptedTls() {
    }

    public static SSLContext server(KeyMaterial key) throws GeneralSecurityException, java.io.IOException {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry("key", key.privateKey(), new char[0], key.chain().toArray(X509Certificate[]::new));
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, new char[0]);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(kmf.getKeyManagers(), null, null);
        return tls;
    }
}

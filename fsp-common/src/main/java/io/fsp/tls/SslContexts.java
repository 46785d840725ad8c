package io.fsp.tls;

import io.fsp.crypto.NativeCrypto;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * Netty SSL contexts for FSP: TLS 1.3 and 1.2 only. Servers may ask peers for a certificate and pin it;
 * clients pin the server's fingerprint or, only when told to, accept any certificate.
 *
 * <p>On relay links (server to relay, client to relay) the provider is OpenSSL (BoringSSL from netty-tcnative)
 * when its native library loads on this platform, else the JDK's; FTP channels keep the JDK's. Why: on relay links every byte passes through TLS on each hop, and the JDK's TLS engine
 * spends most of its time in GCM's GHASH; BoringSSL's assembly AES-GCM does the same work several times
 * faster. System property {@code fsp.tls.provider=jdk|openssl} overrides the choice.
 *
 * <p>The client's blocking FTP sockets (control channel and data connections, {@link #blockingClient}) follow the
 * same policy through a JSSE factory: Conscrypt's native TLS where it loads, else the JDK's.
 */
public final class SslContexts {
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};
    /**
     * Authenticated encryption with forward secrecy only: no CBC, SHA-1 or static-RSA suites, which the providers'
     * defaults still admit for TLS 1.2 when an RSA certificate is configured. What a provider lacks is left out.
     */
    static final List<String> CIPHERS = List.of(
            "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256");
    private static final SslProvider PROVIDER = chooseProvider(System.getProperty("fsp.tls.provider", ""));

    private SslContexts() {
    }

    /** The provider the contexts of this class use (OPENSSL or JDK). */
    public static SslProvider provider() {
        return PROVIDER;
    }

    static SslProvider chooseProvider(String requested) {
        return switch (requested) {
            case "jdk" -> SslProvider.JDK;
            case "openssl", "" -> OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
            default -> throw new IllegalArgumentException("fsp.tls.provider: " + requested + " (expected: jdk or openssl)");
        };
    }

    /**
     * A server context that asks for no client certificate (FTP control and data channels). Always the JDK
     * provider: the FTP server's check that a data connection resumes the control connection's TLS session
     * compares JDK session identities.
     */
    public static SslContext server(KeyMaterial key) throws SSLException {
        return server(key, SslProvider.JDK);
    }

    static SslContext server(KeyMaterial key, SslProvider provider) throws SSLException {
        return serverBuilder(key, provider).build();
    }

    /**
     * A server context whose TLS 1.3 handshakes send no session tickets: its session timeout is above the
     * 7-day ticket lifetime limit, for which the JDK sends none. For connections whose clients may close
     * without reading a ticket (Java's {@code SSLSocket} after an upload): closing a socket with unread
     * data makes the kernel send a reset, and the reset discards what the server has not read yet.
     * Always the JDK provider: the timeout trick is the JDK's behaviour.
     */
    public static SslContext serverWithoutSessionTickets(KeyMaterial key) throws SSLException {
        return serverBuilder(key, SslProvider.JDK).sessionTimeout(NO_TICKET_SESSION_TIMEOUT_SECONDS).build();
    }

    /** Above RFC 8446's 7-day ticket lifetime limit, so the JDK sends no NewSessionTicket. */
    private static final long NO_TICKET_SESSION_TIMEOUT_SECONDS = 8L * 24 * 3600;

    /**
     * A server context that requires a client certificate whose fingerprint is trusted (a relay accepting
     * blocks only from servers it was told to trust).
     */
    public static SslContext serverRequiringPeer(KeyMaterial key, PinnedTrustManager trusted) throws SSLException {
        return serverRequiringPeer(key, trusted, PROVIDER);
    }

    static SslContext serverRequiringPeer(KeyMaterial key, PinnedTrustManager trusted, SslProvider provider) throws SSLException {
        return serverBuilder(key, provider).clientAuth(ClientAuth.REQUIRE).trustManager(trusted).build();
    }

    /** A server context that accepts but does not require a client certificate. */
    public static SslContext serverOptionalPeer(KeyMaterial key, PinnedTrustManager trusted) throws SSLException {
        return serverOptionalPeer(key, trusted, PROVIDER);
    }

    static SslContext serverOptionalPeer(KeyMaterial key, PinnedTrustManager trusted, SslProvider provider) throws SSLException {
        return serverBuilder(key, provider).clientAuth(ClientAuth.OPTIONAL).trustManager(trusted).build();
    }

    private static SslContextBuilder serverBuilder(KeyMaterial key, SslProvider provider) {
        return SslContextBuilder.forServer(key.privateKey(), key.chain().toArray(X509Certificate[]::new))
                .sslProvider(provider)
                .protocols(PROTOCOLS)
                .ciphers(CIPHERS, SupportedCipherSuiteFilter.INSTANCE);
    }

    /**
     * A client context that trusts servers by {@code trusted} and presents {@code identity} when a server
     * asks for a certificate (a server pushing blocks to a relay).
     */
    public static SslContext client(PinnedTrustManager trusted, Optional<KeyMaterial> identity) throws SSLException {
        return client(trusted, identity, PROVIDER);
    }

    static SslContext client(PinnedTrustManager trusted, Optional<KeyMaterial> identity, SslProvider provider) throws SSLException {
        SslContextBuilder builder = SslContextBuilder.forClient()
                .sslProvider(provider)
                .protocols(PROTOCOLS)
                .ciphers(CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
                .trustManager(trusted);
        identity.ifPresent(k -> builder.keyManager(k.privateKey(), k.chain().toArray(X509Certificate[]::new)));
        return builder.build();
    }

    /**
     * A socket factory for a client's blocking TLS sockets (the FTP control channel, and data connections that resume
     * its session): {@link #PROTOCOLS} and {@link #CIPHERS} as every context here, trust by {@code trust} alone, no
     * client certificate. Native TLS (Conscrypt) where it loads ({@link NativeCrypto#tls()}), else the JDK's.
     */
    public static SSLSocketFactory blockingClient(X509TrustManager trust) throws GeneralSecurityException {
        Optional<Provider> nativeTls = NativeCrypto.tls();
        SSLContext ctx = nativeTls.isPresent() ? SSLContext.getInstance("TLS", nativeTls.get()) : SSLContext.getInstance("TLS");
        ctx.init(null, new TrustManager[] {trust}, null);
        return new PolicySocketFactory(ctx.getSocketFactory());
    }

    /** Every socket it makes speaks only {@link #PROTOCOLS} and {@link #CIPHERS} (those the provider has). */
    private static final class PolicySocketFactory extends SSLSocketFactory {
        private final SSLSocketFactory delegate;
        private final String[] ciphers;

        PolicySocketFactory(SSLSocketFactory delegate) {
            this.delegate = delegate;
            List<String> supported = List.of(delegate.getSupportedCipherSuites());
            this.ciphers = CIPHERS.stream().filter(supported::contains).toArray(String[]::new);
        }

        private Socket policy(Socket s) {
            SSLSocket secure = (SSLSocket) s;
            List<String> supported = List.of(secure.getSupportedProtocols());
            secure.setEnabledProtocols(java.util.Arrays.stream(PROTOCOLS).filter(supported::contains).toArray(String[]::new));
            secure.setEnabledCipherSuites(ciphers);
            return secure;
        }

        @Override
        public String[] getDefaultCipherSuites() {
            return ciphers.clone();
        }

        @Override
        public String[] getSupportedCipherSuites() {
            return ciphers.clone();
        }

        @Override
        public Socket createSocket(Socket s, String host, int port, boolean autoClose) throws IOException {
            return policy(delegate.createSocket(s, host, port, autoClose));
        }

        @Override
        public Socket createSocket() throws IOException {
            return policy(delegate.createSocket());
        }

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            return policy(delegate.createSocket(host, port));
        }

        @Override
        public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
            return policy(delegate.createSocket(host, port, localHost, localPort));
        }

        @Override
        public Socket createSocket(InetAddress host, int port) throws IOException {
            return policy(delegate.createSocket(host, port));
        }

        @Override
        public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
            return policy(delegate.createSocket(address, port, localAddress, localPort));
        }
    }
}

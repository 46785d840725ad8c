package io.fsp.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Real TLS handshakes over loopback, with each provider and across them: pinning decides who gets in. */
@Timeout(30)
class SslContextsTest {
    private static final KeyMaterial SERVER = Certificates.selfSigned("server");
    private static final KeyMaterial CLIENT = Certificates.selfSigned("client");
    private static EventLoopGroup group;

    @BeforeAll
    static void start() {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void openSslIsChosenWhereItLoadsAndJdkOnRequest() {
        // netty-tcnative ships BoringSSL for this platform, so the default is OpenSSL here.
        assertTrue(OpenSsl.isAvailable(), () -> "OpenSSL unavailable: " + OpenSsl.unavailabilityCause());
        assertEquals(SslProvider.OPENSSL, SslContexts.provider());
        assertEquals(SslProvider.JDK, SslContexts.chooseProvider("jdk"));
        assertEquals(SslProvider.OPENSSL, SslContexts.chooseProvider("openssl"));
        assertThrows(IllegalArgumentException.class, () -> SslContexts.chooseProvider("gnutls"));
    }

    @ParameterizedTest
    @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
    void clientPinningTheServerFingerprintConnects(SslProvider p) throws Exception {
        assertTrue(handshake(SslContexts.server(SERVER, p),
                SslContexts.client(PinnedTrustManager.of(Set.of(SERVER.fingerprint())), Optional.empty(), p)));
    }

    @ParameterizedTest
    @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
    void clientPinningAnotherFingerprintIsRefused(SslProvider p) throws Exception {
        assertFalse(handshake(SslContexts.server(SERVER, p),
                SslContexts.client(PinnedTrustManager.of(Set.of(CLIENT.fingerprint())), Optional.empty(), p)));
    }

    @ParameterizedTest
    @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
    void serverRequiringATrustedPeerAcceptsItAndRefusesOthers(SslProvider p) throws Exception {
        SslContext relay = SslContexts.serverRequiringPeer(SERVER, PinnedTrustManager.of(Set.of(CLIENT.fingerprint())), p);
        PinnedTrustManager pinRelay = PinnedTrustManager.of(Set.of(SERVER.fingerprint()));
        assertTrue(handshake(relay, SslContexts.client(pinRelay, Optional.of(CLIENT), p)));
        assertFalse(handshake(relay, SslContexts.client(pinRelay, Optional.of(Certificates.selfSigned("stranger")), p)));
        assertFalse(handshake(relay, SslContexts.client(pinRelay, Optional.empty(), p)));
    }

    /** A client that offers only CBC suites (TLS 1.2) is refused by every server context; an AEAD one is served. */
    @ParameterizedTest
    @EnumSource(value = SslProvider.class, names = {"JDK", "OPENSSL"})
    void serversSpeakOnlyAeadSuites(SslProvider p) throws Exception {
        PinnedTrustManager pin = PinnedTrustManager.of(java.util.Set.of(SERVER.fingerprint()));
        SslContext cbcOnly = io.netty.handler.ssl.SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                .protocols("TLSv1.2").ciphers(List.of("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
                        "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "TLS_RSA_WITH_AES_128_CBC_SHA")).trustManager(pin).build();
        SslContext gcm = io.netty.handler.ssl.SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                .protocols("TLSv1.2").ciphers(List.of("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256")).trustManager(pin).build();
        assertFalse(handshake(SslContexts.server(SERVER, p), cbcOnly));
        assertTrue(handshake(SslContexts.server(SERVER, p), gcm));
    }

    @Test
    void openSslAndJdkEndsTalkToEachOther() throws Exception {
        PinnedTrustManager pinServer = PinnedTrustManager.of(Set.of(SERVER.fingerprint()));
        PinnedTrustManager pinClient = PinnedTrustManager.of(Set.of(CLIENT.fingerprint()));
        assertTrue(handshake(SslContexts.serverOptionalPeer(SERVER, pinClient, SslProvider.OPENSSL),
                SslContexts.client(pinServer, Optional.of(CLIENT), SslProvider.JDK)));
        assertTrue(handshake(SslContexts.serverOptionalPeer(SERVER, pinClient, SslProvider.JDK),
                SslContexts.client(pinServer, Optional.of(CLIENT), SslProvider.OPENSSL)));
        assertFalse(handshake(SslContexts.serverRequiringPeer(SERVER, pinClient, SslProvider.OPENSSL),
                SslContexts.client(pinServer, Optional.of(Certificates.selfSigned("stranger")), SslProvider.JDK)));
    }

    /**
     * The client's blocking sockets (FTP control and data) follow the same policy: they reach a pinned server, refuse
     * another certificate, and refuse a server that offers only CBC suites, which a default JSSE client accepts.
     */
    @Test
    void blockingClientSpeaksThePolicy() throws Exception {
        javax.net.ssl.SSLSocketFactory pinned = SslContexts.blockingClient(PinnedTrustManager.of(Set.of(SERVER.fingerprint())));
        javax.net.ssl.SSLSocket unconnected = (javax.net.ssl.SSLSocket) pinned.createSocket();
        assertTrue(Set.of("TLSv1.3", "TLSv1.2").containsAll(List.of(unconnected.getEnabledProtocols())));
        assertTrue(SslContexts.CIPHERS.containsAll(List.of(unconnected.getEnabledCipherSuites())));
        assertTrue(unconnected.getEnabledCipherSuites().length > 0);
        unconnected.close();
        assertTrue(blockingHandshake(SslContexts.server(SERVER), pinned));
        assertFalse(blockingHandshake(SslContexts.server(SERVER),
                SslContexts.blockingClient(PinnedTrustManager.of(Set.of(CLIENT.fingerprint())))));

        SslContext cbcOnly = io.netty.handler.ssl.SslContextBuilder.forServer(SERVER.privateKey(),
                        SERVER.chain().toArray(java.security.cert.X509Certificate[]::new)).sslProvider(SslProvider.JDK)
                .protocols("TLSv1.2").ciphers(List.of("TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
                        "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256")).build();
        javax.net.ssl.SSLContext jdkDefault = javax.net.ssl.SSLContext.getInstance("TLS");
        jdkDefault.init(null, new javax.net.ssl.TrustManager[] {PinnedTrustManager.of(Set.of(SERVER.fingerprint()))}, null);
        assertTrue(blockingHandshake(cbcOnly, jdkDefault.getSocketFactory()), "a default client takes CBC");
        assertFalse(blockingHandshake(cbcOnly, pinned));
    }

    /** Whether a blocking client socket from {@code client} completes a handshake with a Netty server. */
    private static boolean blockingHandshake(SslContext serverContext, javax.net.ssl.SSLSocketFactory client) throws Exception {
        Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(serverContext.newHandler(ch.alloc()));
                    }
                }).bind("127.0.0.1", 0).sync().channel();
        InetSocketAddress address = (InetSocketAddress) server.localAddress();
        try (java.net.Socket plain = new java.net.Socket("127.0.0.1", address.getPort())) {
            plain.setSoTimeout(10_000);
            javax.net.ssl.SSLSocket secure = (javax.net.ssl.SSLSocket) client.createSocket(plain, "127.0.0.1",
                    address.getPort(), true);
            secure.setUseClientMode(true);
            try {
                secure.startHandshake();
                return true;
            } catch (javax.net.ssl.SSLException e) {
                return false;
            }
        } finally {
            server.close().sync();
        }
    }

    /** Returns whether both ends completed the handshake. */
    private static boolean handshake(SslContext serverContext, SslContext clientContext) throws Exception {
        java.util.concurrent.CompletableFuture<Boolean> serverSide = new java.util.concurrent.CompletableFuture<>();
        Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        SslHandler ssl = serverContext.newHandler(ch.alloc());
                        ch.pipeline().addLast(ssl);
                        ssl.handshakeFuture().addListener(f -> serverSide.complete(f.isSuccess()));
                    }
                }).bind("127.0.0.1", 0).sync().channel();
        try {
            InetSocketAddress address = (InetSocketAddress) server.localAddress();
            SslHandler[] clientSsl = new SslHandler[1];
            Channel client = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            clientSsl[0] = clientContext.newHandler(ch.alloc(), "127.0.0.1", address.getPort());
                            ch.pipeline().addLast(clientSsl[0]);
                        }
                    }).connect(address).sync().channel();
            Future<Channel> clientDone = clientSsl[0].handshakeFuture().await();
            // With TLS 1.3 the client may finish before the server has judged its certificate.
            boolean serverOk = serverSide.get(10, TimeUnit.SECONDS);
            client.close().sync();
            return clientDone.isSuccess() && serverOk;
        } finally {
            server.close().sync();
        }
    }
}

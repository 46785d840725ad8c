package io.fsp.tls;

import static org.junit.jupiter.api.Assertions.assertFalse;
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
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Real TLS handshakes over loopback: pinning decides who gets in. */
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
    void clientPinningTheServerFingerprintConnects() throws Exception {
        assertTrue(handshake(SslContexts.server(SERVER),
                SslContexts.client(PinnedTrustManager.of(Set.of(SERVER.fingerprint())), Optional.empty())));
    }

    @Test
    void clientPinningAnotherFingerprintIsRefused() throws Exception {
        assertFalse(handshake(SslContexts.server(SERVER),
                SslContexts.client(PinnedTrustManager.of(Set.of(CLIENT.fingerprint())), Optional.empty())));
    }

    @Test
    void serverRequiringATrustedPeerAcceptsItAndRefusesOthers() throws Exception {
        SslContext relay = SslContexts.serverRequiringPeer(SERVER, PinnedTrustManager.of(Set.of(CLIENT.fingerprint())));
        PinnedTrustManager pinRelay = PinnedTrustManager.of(Set.of(SERVER.fingerprint()));
        assertTrue(handshake(relay, SslContexts.client(pinRelay, Optional.of(CLIENT))));
        assertFalse(handshake(relay, SslContexts.client(pinRelay, Optional.of(Certificates.selfSigned("stranger")))));
        assertFalse(handshake(relay, SslContexts.client(pinRelay, Optional.empty())));
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

package io.fsp.server.ftp.data;

import io.fsp.net.SocketBuffers;
import io.fsp.server.ftp.DataConnection;
import io.fsp.server.ftp.FtpSession;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A listening socket for one passive data connection. The first connection from the control
 * connection's peer address is kept; connections from any other address are closed at once (they could
 * steal or inject a file: the "FTP bounce" and port-stealing attacks). The listener closes after the first
 * accepted connection, or when the connection is not made within the data-connect timeout.
 */
public final class PassiveDataConnection implements DataConnection {
    private static final Logger log = LoggerFactory.getLogger(PassiveDataConnection.class);

    private final FtpSession session;
    private final Channel listener;
    private final Promise<Channel> accepted;
    private final InetSocketAddress address;
    private boolean timeoutArmed;

    private PassiveDataConnection(FtpSession session, Channel listener, Promise<Channel> accepted,
                                  InetSocketAddress address) {
        this.session = session;
        this.listener = listener;
        this.accepted = accepted;
        this.address = address;
    }

    /** Opens a listener on the control connection's local address; call on the control channel's loop. */
    public static PassiveDataConnection open(FtpSession session) throws IOException {
        EventLoop loop = session.channel().eventLoop();
        InetAddress local = session.localAddress().getAddress();
        InetAddress allowed = session.peerAddress().getAddress();
        java.nio.channels.ServerSocketChannel jdk = session.server().passivePorts().bind(local);
        InetSocketAddress bound = (InetSocketAddress) jdk.getLocalAddress();
        Promise<Channel> accepted = loop.newPromise();
        NioServerSocketChannel server = new NioServerSocketChannel(jdk);
        SocketBuffers.applyToAccepted(new ServerBootstrap(), session.server().config().socketBufferBytes())
                .group(loop, loop)
                .channelFactory(() -> server)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        InetAddress from = ((InetSocketAddress) ch.remoteAddress()).getAddress();
                        if (!from.equals(allowed)) {
                            log.warn("{} data connection from {} refused (expected: {})", session, from, allowed);
                            ch.close();
                        } else {
                            // before a transfer that is already waiting (FCOL, or RETR sent before the connection)
                            // takes the connection over, as it does one made earlier
                            DataChannelInitializer.startEarly(session, ch);
                            if (!accepted.trySuccess(ch)) {
                                ch.close(); // one connection per PASV
                            } else {
                                server.close();
                            }
                        }
                    }
                })
                .register();
        accepted.addListener(f -> {
            server.close();
            if (!f.isSuccess() && f.isCancelled()) {
                log.debug("{} passive listener on {} released", session, bound);
            }
        });
        return new PassiveDataConnection(session, server, accepted, bound);
    }

    /** The bound address: its port goes into the 227 or 229 reply. */
    public InetSocketAddress address() {
        return address;
    }

    @Override
    public Future<Channel> connect() {
        if (!timeoutArmed) {
            timeoutArmed = true;
            long millis = session.server().config().limits().dataConnectTimeout().toMillis();
            listener.eventLoop().schedule(() -> accepted.tryFailure(new DataConnectionException(
                    "no data connection within " + millis / 1000 + " s")), millis, TimeUnit.MILLISECONDS);
        }
        return accepted;
    }

    @Override
    public void close() {
        listener.close();
        if (!accepted.cancel(false) && accepted.isSuccess()) {
            accepted.getNow().close();
        }
    }
}

package io.fsp.server.ftp.data;

import io.fsp.net.SocketBuffers;
import io.fsp.server.ftp.DataConnection;
import io.fsp.server.ftp.FtpSession;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.InetSocketAddress;

/**
 * An active data connection (PORT, EPRT): the server connects to the client's address when the transfer
 * starts, from the control connection's local address. The target address is checked by the command
 * (it must be the control connection's peer).
 */
public final class ActiveDataConnection implements DataConnection {
    private final FtpSession session;
    private final InetSocketAddress target;
    private ChannelFuture connecting;

    public ActiveDataConnection(FtpSession session, InetSocketAddress target) {
        this.session = session;
        this.target = target;
    }

    @Override
    public Future<Channel> connect() {
        Promise<Channel> result = session.channel().eventLoop().newPromise();
        int timeout = (int) Math.min(Integer.MAX_VALUE, session.server().config().limits().dataConnectTimeout().toMillis());
        connecting = SocketBuffers.apply(new Bootstrap(), session.server().config().socketBufferBytes())
                .group(session.channel().eventLoop())
                .channel(NioSocketChannel.class)
                .option(ChannelOption.AUTO_READ, false)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, timeout)
                .handler(new ChannelInboundHandlerAdapter())
                .connect(target, new InetSocketAddress(session.localAddress().getAddress(), 0));
        connecting.addListener((ChannelFuture f) -> {
            if (f.isSuccess()) {
                if (!result.trySuccess(f.channel())) {
                    f.channel().close();
                }
            } else {
                result.tryFailure(new DataConnectionException("cannot connect to " + target.getAddress().getHostAddress()
                        + " port " + target.getPort() + ": " + f.cause().getMessage(), f.cause()));
            }
        });
        return result;
    }

    @Override
    public void close() {
        if (connecting != null) {
            connecting.channel().close();
        }
    }
}

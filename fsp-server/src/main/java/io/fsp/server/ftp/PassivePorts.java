package io.fsp.server.ftp;

import io.fsp.server.config.PortRange;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Binds listening sockets for passive data connections, within the configured port range or on any free
 * port. Binding is a single system call, so it is done directly (also on an event loop); successive binds
 * start at successive ports so a port just closed is not the first tried.
 */
public final class PassivePorts {
    private static final int BACKLOG = 4;
    private static final int MAX_ATTEMPTS = 1024;

    private final Optional<PortRange> range;
    private final AtomicInteger next = new AtomicInteger();

    public PassivePorts(Optional<PortRange> range) {
        this.range = range;
        range.ifPresent(r -> next.set(new java.util.Random().nextInt(r.size())));
    }

    /** A bound, non-blocking listening socket on {@code local}. */
    public ServerSocketChannel bind(InetAddress local) throws IOException {
        if (range.isEmpty()) {
            return tryBind(local, 0);
        }
        PortRange r = range.get();
        int attempts = Math.min(r.size(), MAX_ATTEMPTS);
        for (int i = 0; i < attempts; i++) {
            int port = r.low() + Math.floorMod(next.getAndIncrement(), r.size());
            try {
                return tryBind(local, port);
            } catch (BindException e) {
                // in use: try the next one
            }
        }
        throw new BindException("no free port in the passive range " + r + " (widen --passive-ports)");
    }

    private static ServerSocketChannel tryBind(InetAddress local, int port) throws IOException {
        ServerSocketChannel ch = ServerSocketChannel.open();
        try {
            ch.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            ch.bind(new InetSocketAddress(local, port), BACKLOG);
            ch.configureBlocking(false);
            return ch;
        } catch (IOException e) {
            ch.close();
            throw e;
        }
    }
}

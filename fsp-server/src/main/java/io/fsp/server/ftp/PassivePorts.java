package io.fsp.server.ftp;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Optional;

/**
 * Binds listening sockets for passive data connections, on ports taken in turn from the configured range or, without
 * one, from the ports above the system's ephemeral range ({@code net.ipv4.ip_local_port_range}; 61000-65535 with
 * Linux's defaults), which the kernel never hands out itself. A server leaves a connection in TIME_WAIT for every
 * file it sends (it closes the data connection to end the file): in the ephemeral range, mirroring 20,000 small files
 * held the whole range for a minute, and other programs on the host found no port for their own connections (a
 * GridFTP client beside it failed to bind). Where the system's range leaves fewer than {@link #MIN_DEFAULT_PORTS}
 * above it, the ephemeral range itself is used. The port is always chosen here, never left to the kernel (port 0)
 * unless every try failed: with thousands of connections in TIME_WAIT the kernel's search for a free port walks them
 * on every bind (lftp mirroring 20,000 files: 66 CPU s in that search, 40 s instead of a few). Binding is a single
 * system call, so it is done directly (also on an event loop). Each bind starts at a port drawn at random from the
 * range, then walks up from it: a port that follows the last one would let a host that shares the client's address
 * (the same NAT) connect to the next PASV's port before the client does; and a port just closed is rarely the first
 * tried.
 */
public final class PassivePorts {
    private static final int BACKLOG = 4;
    private static final int MAX_ATTEMPTS = 1024;
    /** The fewest ports above the ephemeral range worth taking as the default range. */
    static final int MIN_DEFAULT_PORTS = 1024;
    /** Linux's default ephemeral range, where the system's cannot be read. */
    private static final PortRange EPHEMERAL = new PortRange(32768, 60999);

    private final PortRange range;
    private final boolean configured;
    private final SecureRandom random = new SecureRandom();

    public PassivePorts(Optional<PortRange> range) {
        this.configured = range.isPresent();
        this.range = range.orElseGet(() -> defaultRange(ephemeral()));
    }

    /** The ports above {@code ephemeral} up to 65535, or {@code ephemeral} itself where that leaves too few. */
    static PortRange defaultRange(PortRange ephemeral) {
        int low = ephemeral.high() + 1;
        return 65535 - low + 1 >= MIN_DEFAULT_PORTS ? new PortRange(low, 65535) : ephemeral;
    }

    /** The system's ephemeral port range: the ports the kernel itself would pick. */
    static PortRange ephemeral() {
        try {
            String[] lowHigh = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).strip().split("\\s+");
            return new PortRange(Integer.parseInt(lowHigh[0]), Integer.parseInt(lowHigh[1]));
        } catch (IOException | RuntimeException e) {
            return EPHEMERAL;
        }
    }

    /** A bound, non-blocking listening socket on {@code local}. */
    public ServerSocketChannel bind(InetAddress local) throws IOException {
        int attempts = Math.min(range.size(), MAX_ATTEMPTS);
        int start = random.nextInt(range.size());
        for (int i = 0; i < attempts; i++) {
            int port = range.low() + (start + i) % range.size();
            try {
                return tryBind(local, port);
            } catch (BindException e) {
                // in use: try the next one
            }
        }
        if (!configured) {
            return tryBind(local, 0); // a crowded range: let the kernel search its own
        }
        throw new BindException("no free port in the passive range " + range + " (widen --passive-ports)");
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

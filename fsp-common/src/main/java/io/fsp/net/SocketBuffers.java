package io.fsp.net;

import io.netty.bootstrap.AbstractBootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelOption;

/**
 * A fixed socket buffer size, where an administrator configures one ({@code --socket-buffer}); by default (0)
 * none. Left alone, Linux grows each connection's buffers to its bandwidth-delay product, up to the maxima of
 * {@code net.ipv4.tcp_rmem} and {@code tcp_wmem}; a size set on a socket turns that autotuning off for it, and
 * the kernel caps the size at {@code net.core.rmem_max} / {@code wmem_max} (208 KiB by default). A fixed size
 * is for hosts whose autotuning limits are lower than their links need and whose core limits are raised.
 */
public final class SocketBuffers {
    /** The largest size accepted: far beyond any bandwidth-delay product FSP meets. */
    public static final int MAX_BYTES = 1 << 30;

    private SocketBuffers() {
    }

    /** Checks a configured size: 0 (none) or 4 KiB to {@link #MAX_BYTES}; returns it. */
    public static int check(String name, long bytes) {
        if (bytes != 0 && (bytes < 4096 || bytes > MAX_BYTES)) {
            throw new IllegalArgumentException(name + ": " + bytes + " (expected: 0 for the kernel's autotuning, or "
                    + "4096.." + MAX_BYTES + " bytes)");
        }
        return (int) bytes;
    }

    /** Sets both buffers of the bootstrap's channel to {@code bytes}, unless 0. */
    public static <B extends AbstractBootstrap<B, ?>> B apply(B bootstrap, int bytes) {
        return bytes == 0 ? bootstrap
                : bootstrap.option(ChannelOption.SO_RCVBUF, bytes).option(ChannelOption.SO_SNDBUF, bytes);
    }

    /**
     * Sets both buffers of every accepted connection to {@code bytes}, unless 0; the listener's receive buffer
     * too, which accepted connections start with and which sets the window scale they announce.
     */
    public static ServerBootstrap applyToAccepted(ServerBootstrap bootstrap, int bytes) {
        return bytes == 0 ? bootstrap : bootstrap.option(ChannelOption.SO_RCVBUF, bytes)
                .childOption(ChannelOption.SO_RCVBUF, bytes).childOption(ChannelOption.SO_SNDBUF, bytes);
    }
}

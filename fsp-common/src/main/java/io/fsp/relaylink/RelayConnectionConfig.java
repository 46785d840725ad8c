package io.fsp.relaylink;

import io.fsp.config.Durations;
import io.fsp.net.SocketBuffers;
import io.fsp.relaylink.wire.RelayLimits;
import java.time.Duration;

/**
 * Knobs of one relay connection.
 *
 * @param connectTimeout TCP connect plus TLS handshake plus HELLO
 * @param requestTimeout how long any request but PUT_BLOCK may wait for its answer
 * @param putTimeout how long a pushed block may wait for the relay's OK; a full relay delays it on
 *                   purpose (back-pressure), so this is long
 * @param pushWindowBytes unacknowledged block bytes allowed in flight; further puts wait locally
 * @param limits frame limits for what the relay sends
 * @param socketBufferBytes a fixed size for both socket buffers, 0 (the default) to leave them to the kernel's
 *                          autotuning ({@link SocketBuffers})
 * @param clearLinks blocks over a clear link beside the TLS connection (docs/protocol.md §3.7; the default), or
 *                   false: everything over TLS, frame headers hidden too
 */
public record RelayConnectionConfig(Duration connectTimeout, Duration requestTimeout, Duration putTimeout,
                                    long pushWindowBytes, RelayLimits limits, int socketBufferBytes,
                                    boolean clearLinks) {
    public static final RelayConnectionConfig DEFAULT = new RelayConnectionConfig(Duration.ofSeconds(10),
            Duration.ofSeconds(30), Duration.ofMinutes(10), 16L * 1024 * 1024, RelayLimits.DEFAULT);

    /** Socket buffers left to the kernel, blocks over clear links. */
    public RelayConnectionConfig(Duration connectTimeout, Duration requestTimeout, Duration putTimeout,
                                 long pushWindowBytes, RelayLimits limits) {
        this(connectTimeout, requestTimeout, putTimeout, pushWindowBytes, limits, 0, true);
    }

    public RelayConnectionConfig {
        SocketBuffers.check("socketBufferBytes", socketBufferBytes);
        Durations.requirePositive("connectTimeout", connectTimeout);
        Durations.requirePositive("requestTimeout", requestTimeout);
        Durations.requirePositive("putTimeout", putTimeout);
        if (pushWindowBytes < 1) {
            throw new IllegalArgumentException("pushWindowBytes: " + pushWindowBytes + " (expected: >= 1)");
        }
    }

    public RelayConnectionConfig withConnectTimeout(Duration timeout) {
        return new RelayConnectionConfig(timeout, requestTimeout, putTimeout, pushWindowBytes, limits, socketBufferBytes, clearLinks);
    }

    public RelayConnectionConfig withRequestTimeout(Duration timeout) {
        return new RelayConnectionConfig(connectTimeout, timeout, putTimeout, pushWindowBytes, limits, socketBufferBytes, clearLinks);
    }

    public RelayConnectionConfig withPutTimeout(Duration timeout) {
        return new RelayConnectionConfig(connectTimeout, requestTimeout, timeout, pushWindowBytes, limits, socketBufferBytes, clearLinks);
    }

    public RelayConnectionConfig withPushWindowBytes(long bytes) {
        return new RelayConnectionConfig(connectTimeout, requestTimeout, putTimeout, bytes, limits, socketBufferBytes, clearLinks);
    }

    public RelayConnectionConfig withSocketBufferBytes(int bytes) {
        return new RelayConnectionConfig(connectTimeout, requestTimeout, putTimeout, pushWindowBytes, limits, bytes, clearLinks);
    }

    /** Blocks over a clear link ({@code true}), or everything over TLS. */
    public RelayConnectionConfig withClearLinks(boolean clear) {
        return new RelayConnectionConfig(connectTimeout, requestTimeout, putTimeout, pushWindowBytes, limits, socketBufferBytes, clear);
    }
}

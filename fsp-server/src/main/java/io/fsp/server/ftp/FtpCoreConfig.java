package io.fsp.server.ftp;

import io.fsp.config.ByteSize;
import io.fsp.config.Durations;
import io.fsp.net.SocketBuffers;
import java.time.Duration;

/**
 * The settings the FTP core reads, and nothing of the FSP extension's: a group of the server's configuration
 * ({@code ServerConfig.ftpCore()}), loaded from the same flat keys. Each component is the configuration key of the
 * same name ({@code maxLineLength} is {@code max-line-length}), declared in {@code ServerSettings} and explained in
 * {@code conf/server.conf.example}; a setting the FTP core reads is a component here and its use.
 *
 * @param socketBuffer  fixed socket buffers of data (and relay) connections, 0 for the kernel's autotuning
 * @param checksumRate  bytes per second a connection's checksum commands may read ({@link ChecksumAllowance})
 * @param checksumBurst bytes they may read at once
 */
public record FtpCoreConfig(
        boolean allowPlainLogin,
        boolean requireTlsSessionReuse,
        ByteSize socketBuffer,
        Duration idleTimeout,
        Duration loginGraceTime,
        Duration dataTimeout,
        int maxLineLength,
        Duration dataConnectTimeout,
        boolean fsyncUploads,
        int maxLoginFailures,
        long checksumRate,
        long checksumBurst) {

    public FtpCoreConfig {
        SocketBuffers.check("socket-buffer", socketBuffer.bytes());
        Durations.requirePositive("idle-timeout", idleTimeout);
        Durations.requirePositive("login-grace-time", loginGraceTime);
        Durations.requirePositive("data-timeout", dataTimeout);
        Durations.requirePositive("data-connect-timeout", dataConnectTimeout);
    }

    /** The fixed size of data connections' socket buffers, 0 for the kernel's autotuning. */
    public int socketBufferBytes() {
        return (int) socketBuffer.bytes();
    }
}

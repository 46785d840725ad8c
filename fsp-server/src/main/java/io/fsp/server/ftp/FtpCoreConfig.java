package io.fsp.server.ftp;

import java.time.Duration;

/**
 * The settings the FTP core reads, and nothing of the FSP extension's: the server's configuration makes one
 * ({@code ServerConfig.ftpCore()}); each component is the configuration key of the same name, explained in
 * {@code conf/server.conf.example}.
 *
 * @param socketBufferBytes fixed socket buffers of data connections, 0 for the kernel's autotuning
 * @param checksumRate      bytes per second a connection's checksum commands may read ({@link ChecksumAllowance})
 * @param checksumBurst     bytes they may read at once
 */
public record FtpCoreConfig(
        int maxLineLength,
        Duration idleTimeout,
        Duration loginGraceTime,
        Duration dataConnectTimeout,
        Duration dataTimeout,
        int maxLoginFailures,
        boolean allowPlainLogin,
        boolean requireTlsSessionReuse,
        boolean fsyncUploads,
        int socketBufferBytes,
        long checksumRate,
        long checksumBurst) {
}

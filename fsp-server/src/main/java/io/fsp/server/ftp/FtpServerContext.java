package io.fsp.server.ftp;

import io.fsp.server.auth.LoginThrottle;
import io.fsp.server.auth.UserStore;
import io.fsp.server.metrics.ServerMetrics;
import io.fsp.tls.Fingerprint;
import io.netty.handler.ssl.SslContext;
import java.net.InetAddress;
import java.util.Optional;
import java.util.concurrent.ExecutorService;

/**
 * What every control connection of one server shares: the FTP core's configuration, TLS context, users, the command
 * registry, the executors for blocking work (file work and logins apart), and the connection limits.
 *
 * @param announceAddress the address PASV replies name instead of the control connection's local one
 * @param sslContext     TLS for control connections, and for data connections that resume their session
 * @param dataSslContext TLS for data connections that start a new session: sends no session tickets
 * @param blocking runs file-system calls, hashing and upload writes, never on an event loop
 * @param logins   runs password checks (Argon2), on threads of their own so that file work never delays a login
 * @param metrics  what the server counts
 */
public record FtpServerContext(
        FtpCoreConfig config,
        SslContext sslContext,
        SslContext dataSslContext,
        Fingerprint fingerprint,
        UserStore users,
        LoginThrottle loginThrottle,
        FtpCommands commands,
        ExecutorService blocking,
        ExecutorService logins,
        ConnectionLimits connectionLimits,
        PassivePorts passivePorts,
        Optional<InetAddress> announceAddress,
        ServerMetrics metrics) {

    /** With metrics of its own, that nobody serves. */
    public FtpServerContext(FtpCoreConfig config, SslContext sslContext, SslContext dataSslContext, Fingerprint fingerprint,
                            UserStore users, LoginThrottle loginThrottle, FtpCommands commands, ExecutorService blocking,
                            ExecutorService logins, ConnectionLimits connectionLimits, PassivePorts passivePorts,
                            Optional<InetAddress> announceAddress) {
        this(config, sslContext, dataSslContext, fingerprint, users, loginThrottle, commands, blocking, logins,
                connectionLimits, passivePorts, announceAddress, new ServerMetrics(connectionLimits::total));
    }
}

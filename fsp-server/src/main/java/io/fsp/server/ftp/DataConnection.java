package io.fsp.server.ftp;

import io.netty.channel.Channel;
import io.netty.util.concurrent.Future;

/**
 * A data connection prepared by PASV, EPSV, PORT or EPRT and used by the next transfer command. Its
 * channel runs on the control channel's event loop, starts with auto-read off (nothing is read before
 * the transfer decides how), and has not been set up for TLS yet.
 */
public interface DataConnection {
    /** Completes with the connected channel: accepted (passive) or opened now (active). */
    Future<Channel> connect();

    /** Releases the listening socket or the connection, if still held. */
    void close();
}

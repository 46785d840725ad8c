package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import java.net.Inet4Address;
import java.net.InetAddress;

/**
 * {@code PASV} — RFC 959 §4.1.1: listens for the data connection and answers
 * {@code 227 Entering Passive Mode (h1,h2,h3,h4,p1,p2)} with the announce address, if configured, or the
 * control connection's local address. IPv4 only; IPv6 clients use EPSV.
 */
public final class PasvCommand extends DataSetupCommand {
    @Override
    public String verb() {
        return "PASV";
    }

    @Override
    public String syntax() {
        return "PASV";
    }

    @Override
    void setUp(FtpSession session, FtpRequest request) {
        InetAddress announce = session.server().announceAddress()
                .orElse(session.localAddress().getAddress());
        if (!(announce instanceof Inet4Address)) {
            session.reply(new FtpReply(ReplyCode.CANT_OPEN_DATA_CONNECTION, "PASV works over IPv4 only; use EPSV"));
            return;
        }
        DataCommands.listen(session).ifPresent(connection -> {
            byte[] a = announce.getAddress();
            int port = connection.address().getPort();
            session.reply(new FtpReply(ReplyCode.ENTERING_PASSIVE, String.format(java.util.Locale.ROOT,
                    "Entering Passive Mode (%d,%d,%d,%d,%d,%d)", a[0] & 0xFF, a[1] & 0xFF, a[2] & 0xFF, a[3] & 0xFF,
                    port >> 8, port & 0xFF)));
        });
    }
}

package io.fsp.server.ftp.command;

import io.fsp.ftp.ReplyCode;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.server.ftp.data.ActiveDataConnection;
import io.fsp.server.ftp.data.PassiveDataConnection;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Optional;

/** What the data-connection verbs (PASV, EPSV, PORT, EPRT) share; each replies itself when it refuses. */
final class DataCommands {
    private DataCommands() {
    }

    /** Opens and sets the passive data connection, or replies 425 and returns empty. */
    static Optional<PassiveDataConnection> listen(FtpSession session) {
        PassiveDataConnection connection;
        try {
            connection = PassiveDataConnection.open(session);
        } catch (IOException e) {
            session.reply(new FtpReply(ReplyCode.CANT_OPEN_DATA_CONNECTION, "Cannot open passive port: " + e.getMessage()));
            return Optional.empty();
        }
        session.dataConnection(connection);
        return Optional.of(connection);
    }

    /** For PORT and EPRT: checks the target and prepares the active connection. */
    static void connectTo(FtpSession session, InetAddress requested, int port) {
        InetAddress peer = session.peerAddress().getAddress();
        // lftp sends the unspecified address (EPRT |2|::|port|) for "my address": it names the client itself.
        InetAddress address = requested.isAnyLocalAddress() ? peer : requested;
        if (!address.equals(peer)) {
            session.reply(Replies.badArguments("Data connections go to your own address only (" + peer.getHostAddress() + ")"));
            return;
        }
        if (port < 1024) {
            session.reply(Replies.badArguments("Port " + port + " is privileged (expected: 1024..65535)"));
            return;
        }
        session.dataConnection(new ActiveDataConnection(session, new InetSocketAddress(address, port)));
        session.reply(Replies.ok("PORT command successful"));
    }
}

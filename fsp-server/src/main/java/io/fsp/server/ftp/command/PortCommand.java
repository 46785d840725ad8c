package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import io.fsp.server.ftp.data.ActiveDataConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * {@code PORT h1,h2,h3,h4,p1,p2} — RFC 959 §4.1.2: the server will connect to that address for the next
 * transfer. The address must be the client's own and the port unprivileged (RFC 2577 §3, bounce attacks);
 * the unspecified address ({@code 0.0.0.0}, {@code ::}) stands for the client's own.
 */
public final class PortCommand implements FtpCommand {
    @Override
    public String verb() {
        return "PORT";
    }

    @Override
    public String syntax() {
        return "PORT h1,h2,h3,h4,p1,p2";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        if (session.epsvAll()) {
            session.reply(Replies.badSequence("EPSV ALL is in effect; use EPSV"));
            return;
        }
        String[] parts = request.argument().strip().split(",");
        int[] n = new int[6];
        boolean ok = parts.length == 6;
        for (int i = 0; ok && i < 6; i++) {
            ok = parts[i].strip().matches("\\d{1,3}") && (n[i] = Integer.parseInt(parts[i].strip())) <= 255;
        }
        if (!ok) {
            session.reply(Replies.badArguments("PORT '" + request.argument() + "' (expected: h1,h2,h3,h4,p1,p2)"));
            return;
        }
        InetAddress address;
        try {
            address = InetAddress.getByAddress(new byte[] {(byte) n[0], (byte) n[1], (byte) n[2], (byte) n[3]});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes are always an address
        }
        accept(session, address, n[4] * 256 + n[5]);
    }

    /** Shared with EPRT: checks the target and prepares the active connection. */
    static void accept(FtpSession session, InetAddress requested, int port) {
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

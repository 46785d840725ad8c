package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * {@code PORT h1,h2,h3,h4,p1,p2} — RFC 959 §4.1.2: the server will connect to that address for the next
 * transfer. The address must be the client's own and the port unprivileged (RFC 2577 §3, bounce attacks);
 * the unspecified address ({@code 0.0.0.0}, {@code ::}) stands for the client's own.
 */
public final class PortCommand extends DataSetupCommand {
    @Override
    public String verb() {
        return "PORT";
    }

    @Override
    public String syntax() {
        return "PORT h1,h2,h3,h4,p1,p2";
    }

    @Override
    void setUp(FtpSession session, FtpRequest request) {
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
        DataCommands.connectTo(session, address, n[4] * 256 + n[5]);
    }
}

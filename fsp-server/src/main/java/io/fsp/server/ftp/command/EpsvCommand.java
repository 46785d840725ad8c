package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import java.net.Inet6Address;
import java.util.List;
import java.util.Locale;

/**
 * {@code EPSV [1|2|ALL]} — RFC 2428 §3: listens for the data connection and answers
 * {@code 229 Entering Extended Passive Mode (|||port|)}; the client connects to the control connection's
 * address. After {@code EPSV ALL} other data-connection commands are refused (§4).
 */
public final class EpsvCommand implements FtpCommand {
    @Override
    public String verb() {
        return "EPSV";
    }

    @Override
    public String syntax() {
        return "EPSV [1|2|ALL]";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public List<String> features(FtpSession session) {
        return List.of("EPSV");
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        String arg = request.argument().strip().toUpperCase(Locale.ROOT);
        String family = session.localAddress().getAddress() instanceof Inet6Address ? "2" : "1";
        if (arg.equals("ALL")) {
            session.epsvAll(true);
            session.reply(Replies.ok("EPSV ALL ok"));
            return;
        }
        if (!arg.isEmpty() && !arg.equals(family)) {
            session.reply(arg.equals("1") || arg.equals("2")
                    ? new FtpReply(ReplyCode.NETWORK_PROTOCOL_NOT_SUPPORTED, "Network protocol not supported, use (" + family + ")")
                    : Replies.badArguments("EPSV '" + request.argument() + "' (expected: 1, 2 or ALL)"));
            return;
        }
        DataCommands.listen(session).ifPresent(connection -> session.reply(new FtpReply(ReplyCode.ENTERING_EXTENDED_PASSIVE,
                "Entering Extended Passive Mode (|||" + connection.address().getPort() + "|)")));
    }
}

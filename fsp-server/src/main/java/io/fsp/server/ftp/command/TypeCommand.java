package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import io.fsp.server.ftp.TransferType;
import java.util.Locale;

/**
 * {@code TYPE A [N] | I | L 8} — RFC 959 §4.1.2 and §3.1.1. ASCII converts line ends on the wire; image
 * and local-8 send bytes as they are.
 */
public final class TypeCommand implements FtpCommand {
    @Override
    public String verb() {
        return "TYPE";
    }

    @Override
    public String syntax() {
        return "TYPE A|I|L 8";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        String arg = request.argument().strip().toUpperCase(Locale.ROOT).replaceAll("\\s+", " ");
        switch (arg) {
            case "A", "A N" -> {
                session.type(TransferType.ASCII);
                session.reply(Replies.ok("Type set to A"));
            }
            case "I", "L 8", "L8" -> {
                session.type(TransferType.BINARY);
                session.reply(Replies.ok("Type set to I"));
            }
            case "A T", "A C", "E", "E N", "E T", "E C" -> session.reply(Replies.notImplementedForParameter(
                    "TYPE " + arg + " not supported (expected: A or I)"));
            default -> session.reply(arg.startsWith("L ")
                    ? Replies.notImplementedForParameter("TYPE " + arg + " not supported (expected: L 8)")
                    : Replies.badArguments("TYPE '" + request.argument() + "' unknown (expected: A or I)"));
        }
    }
}

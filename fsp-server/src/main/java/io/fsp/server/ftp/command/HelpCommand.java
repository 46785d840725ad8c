package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;

/** {@code HELP [<verb>]} — RFC 959 §4.1.3. */
public final class HelpCommand implements FtpCommand {
    @Override
    public String verb() {
        return "HELP";
    }

    @Override
    public String syntax() {
        return "HELP [<verb>]";
    }

    @Override
    public Access access() {
        return Access.ANY;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        session.reply(request.hasArgument()
                ? session.server().commands().help(request.argument().strip())
                : session.server().commands().help());
    }
}

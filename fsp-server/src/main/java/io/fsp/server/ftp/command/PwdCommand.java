package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;

/** {@code PWD} (alias {@code XPWD}, RFC 775) — RFC 959 §4.1.3. */
public final class PwdCommand implements FtpCommand {
    @Override
    public String verb() {
        return "PWD";
    }

    @Override
    public String syntax() {
        return "PWD";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        session.reply(new FtpReply(ReplyCode.PATH_CREATED, Replies.quote(session.cwd()) + " is the current directory"));
    }
}

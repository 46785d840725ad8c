package io.fsp.server.ftp.command;

import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;

/** {@code QUIT} — RFC 959 §4.1.1. Closes the connection after the reply; a running transfer finished first, since QUIT waits in the queue. */
public final class QuitCommand implements FtpCommand {
    @Override
    public String verb() {
        return "QUIT";
    }

    @Override
    public String syntax() {
        return "QUIT";
    }

    @Override
    public Access access() {
        return Access.ANY;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        session.replyAndClose(new FtpReply(ReplyCode.CLOSING, "Goodbye"));
    }
}

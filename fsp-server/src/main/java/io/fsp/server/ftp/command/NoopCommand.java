package io.fsp.server.ftp.command;

import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;

/** {@code NOOP} — RFC 959 §4.1.3. */
public final class NoopCommand implements FtpCommand {
    @Override
    public String verb() {
        return "NOOP";
    }

    @Override
    public String syntax() {
        return "NOOP";
    }

    @Override
    public Access access() {
        return Access.ANY;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        session.reply(Replies.ok("NOOP ok"));
    }
}

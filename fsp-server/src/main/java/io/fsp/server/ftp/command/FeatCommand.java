package io.fsp.server.ftp.command;

import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;

/** {@code FEAT} — RFC 2389 §3. Lists what the registry's commands advertise. */
public final class FeatCommand implements FtpCommand {
    @Override
    public String verb() {
        return "FEAT";
    }

    @Override
    public String syntax() {
        return "FEAT";
    }

    @Override
    public Access access() {
        return Access.ANY;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        session.reply(session.server().commands().features(session));
    }
}

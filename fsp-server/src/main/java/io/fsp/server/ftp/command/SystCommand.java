package io.fsp.server.ftp.command;

import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;

/** {@code SYST} — RFC 959 §4.1.3. Every client parses LIST in the Unix form this names. */
public final class SystCommand implements FtpCommand {
    @Override
    public String verb() {
        return "SYST";
    }

    @Override
    public String syntax() {
        return "SYST";
    }

    @Override
    public Access access() {
        return Access.ANY;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        session.reply(new FtpReply(ReplyCode.SYSTEM_TYPE, "UNIX Type: L8"));
    }
}

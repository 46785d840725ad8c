package io.fsp.server.ftp.command;

import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;

/** {@code ALLO <size> [R <record size>]} — RFC 959 §4.1.3. No storage needs to be reserved. */
public final class AlloCommand implements FtpCommand {
    @Override
    public String verb() {
        return "ALLO";
    }

    @Override
    public String syntax() {
        return "ALLO <size> [R <record size>]";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        session.reply(new FtpReply(ReplyCode.NOT_NEEDED, "ALLO not needed"));
    }
}

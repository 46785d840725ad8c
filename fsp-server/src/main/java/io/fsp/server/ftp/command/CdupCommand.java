package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;

/** {@code CDUP} (alias {@code XCUP}) — RFC 959 §4.1.1. At the root it stays at the root. */
public final class CdupCommand implements FtpCommand {
    @Override
    public String verb() {
        return "CDUP";
    }

    @Override
    public String syntax() {
        return "CDUP";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        CwdCommand.change(session, "..");
    }
}

package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;

/** {@code MLSD [<directory>]} — RFC 3659 §7: machine-readable facts of a directory's entries. */
public final class MlsdCommand implements FtpCommand {
    @Override
    public String verb() {
        return "MLSD";
    }

    @Override
    public String syntax() {
        return "MLSD [<directory>]";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        Listings.send(session, request, Listings.Format.MLSD);
    }
}

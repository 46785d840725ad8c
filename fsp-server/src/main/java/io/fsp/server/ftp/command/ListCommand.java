package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;

/** {@code LIST [<options>] [<path>]} — RFC 959 §4.1.3: {@code ls -l} lines over the data connection. */
public final class ListCommand implements FtpCommand {
    @Override
    public String verb() {
        return "LIST";
    }

    @Override
    public String syntax() {
        return "LIST [<options>] [<path>]";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        Listings.send(session, request, Listings.Format.LIST);
    }
}

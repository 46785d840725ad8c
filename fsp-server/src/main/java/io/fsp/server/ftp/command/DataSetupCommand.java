package io.fsp.server.ftp.command;

import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;

/** A data-connection setup verb other than EPSV (PASV, PORT, EPRT): after EPSV ALL it is refused (RFC 2428 §4). */
abstract class DataSetupCommand implements FtpCommand {
    @Override
    public final Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public final void execute(FtpSession session, FtpRequest request) {
        if (session.epsvAll()) {
            session.reply(Replies.badSequence("EPSV ALL is in effect; use EPSV"));
            return;
        }
        setUp(session, request);
    }

    /** Sets up the data connection the request asks for, or replies why not. */
    abstract void setUp(FtpSession session, FtpRequest request);
}

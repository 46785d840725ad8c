package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import io.fsp.server.fs.ListingFormatter;
import java.util.List;

/** {@code MDTM <path>} — RFC 3659 §3: the modification time, {@code YYYYMMDDHHMMSS} in UTC. */
public final class MdtmCommand implements FtpCommand {
    @Override
    public String verb() {
        return "MDTM";
    }

    @Override
    public String syntax() {
        return "MDTM <path>";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public List<String> features(FtpSession session) {
        return List.of("MDTM");
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        CommandPaths.required(session, request, this).ifPresent(path -> session.blocking(path,
                () -> session.root().attributes(path).lastModifiedTime().toInstant(),
                time -> session.reply(new FtpReply(ReplyCode.FILE_STATUS, ListingFormatter.TIME_VAL.format(time)))));
    }
}

package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.UserRoot;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;

/** {@code RNFR <path>} — RFC 959 §4.1.3; must be followed at once by RNTO. */
public final class RnfrCommand implements FtpCommand {
    @Override
    public String verb() {
        return "RNFR";
    }

    @Override
    public String syntax() {
        return "RNFR <path>";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        if (!CommandPaths.writable(session)) {
            return;
        }
        CommandPaths.required(session, request, this).ifPresent(path -> session.blocking(path, () -> {
            if (path.isRoot()) {
                throw new java.nio.file.NoSuchFileException(path.toString());
            }
            try (UserRoot.Entry entry = session.root().entry(path)) {
                entry.dir().existing(entry.name());
            }
            return path;
        }, from -> {
            session.renameFrom(from);
            session.reply(new FtpReply(ReplyCode.PENDING_FURTHER_INFO, "Ready for destination name"));
        }));
    }
}

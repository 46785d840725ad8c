package io.fsp.server.ftp.command;

import io.fsp.ftp.ReplyCode;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.UserRoot;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpSession;
import java.nio.file.NoSuchFileException;

/** {@code RNFR <path>} — RFC 959 §4.1.3; must be followed at once by RNTO. */
public final class RnfrCommand extends PathChangeCommand {
    public RnfrCommand() {
        super("RNFR");
    }

    @Override
    void change(FtpSession session, FtpPath path) throws Exception {
        if (path.isRoot()) {
            throw new NoSuchFileException(path.toString());
        }
        try (UserRoot.Entry entry = session.root().entry(path)) {
            entry.dir().existing(entry.name());
        }
    }

    @Override
    void done(FtpSession session, FtpPath from) {
        session.renameFrom(from);
        session.reply(new FtpReply(ReplyCode.PENDING_FURTHER_INFO, "Ready for destination name"));
    }
}

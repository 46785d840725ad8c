package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.UserRoot;
import io.fsp.server.ftp.FtpReplyException;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;

/** {@code DELE <path>} — RFC 959 §4.1.3. Deletes a file (or a link itself), never a directory. */
public final class DeleCommand extends PathChangeCommand {
    public DeleCommand() {
        super("DELE");
    }

    @Override
    void change(FtpSession session, FtpPath path) throws Exception {
        try (UserRoot.Entry entry = session.root().entry(path)) {
            if (entry.dir().existing(entry.name()).isDirectory()) {
                throw new FtpReplyException(Replies.notAFile(path));
            }
            entry.dir().deleteFile(entry.name());
        }
    }

    @Override
    void done(FtpSession session, FtpPath deleted) {
        session.reply(Replies.fileActionOk(Replies.quote(deleted) + " deleted"));
    }
}

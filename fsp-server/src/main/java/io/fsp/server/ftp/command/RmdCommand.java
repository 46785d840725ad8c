package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.UserRoot;
import io.fsp.server.ftp.FtpReplyException;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import java.nio.file.AccessDeniedException;

/** {@code RMD <path>} (alias {@code XRMD}) — RFC 959 §4.1.3. Removes an empty directory, never the root. */
public final class RmdCommand extends PathChangeCommand {
    public RmdCommand() {
        super("RMD");
    }

    @Override
    void change(FtpSession session, FtpPath path) throws Exception {
        if (path.isRoot()) {
            throw new AccessDeniedException("/");
        }
        try (UserRoot.Entry entry = session.root().entry(path)) {
            if (!entry.dir().existing(entry.name()).isDirectory()) {
                throw new FtpReplyException(Replies.notADirectory(path));
            }
            entry.dir().deleteDirectory(entry.name());
        }
    }

    @Override
    void done(FtpSession session, FtpPath removed) {
        session.reply(Replies.fileActionOk(Replies.quote(removed) + " removed"));
    }
}

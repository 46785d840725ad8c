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

/**
 * {@code RNTO <path>} — RFC 959 §4.1.3. Renames what RNFR named, replacing an existing file as
 * {@code rename(2)} does.
 */
public final class RntoCommand implements FtpCommand {
    @Override
    public String verb() {
        return "RNTO";
    }

    @Override
    public String syntax() {
        return "RNTO <path>";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        FtpPath from = session.renameFrom().orElse(null);
        session.renameFrom(null);
        if (from == null) {
            session.reply(Replies.badSequence("RNTO must follow RNFR"));
            return;
        }
        if (!CommandPaths.writable(session)) {
            return;
        }
        CommandPaths.required(session, request, this).ifPresent(to -> session.blocking(to, () -> {
            if (to.isRoot()) {
                throw new java.nio.file.FileAlreadyExistsException("/");
            }
            try (UserRoot.Entry source = session.root().entry(from); UserRoot.Entry target = session.root().entry(to)) {
                source.dir().move(source.name(), target.dir(), target.name());
            }
            return to;
        }, renamed -> session.reply(Replies.fileActionOk("Renamed " + Replies.quote(from) + " to " + Replies.quote(renamed)))));
    }
}

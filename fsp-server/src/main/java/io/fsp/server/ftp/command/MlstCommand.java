package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import io.fsp.server.fs.DirectoryEntry;
import io.fsp.server.fs.ListingFormatter;
import java.util.List;

/**
 * {@code MLST [<path>]} — RFC 3659 §7: the facts of one file or directory over the control channel.
 */
public final class MlstCommand implements FtpCommand {
    @Override
    public String verb() {
        return "MLST";
    }

    @Override
    public String syntax() {
        return "MLST [<path>]";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public List<String> features(FtpSession session) {
        return List.of("MLST type*;size*;modify*;perm*;");
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        CommandPaths.resolve(session, request.hasArgument() ? request.argument() : ".").ifPresent(path ->
                session.blocking(path, () -> DirectoryEntry.of(path.name(), session.root().attributes(path)), entry ->
                        session.reply(new FtpReply(ReplyCode.FILE_ACTION_OK, List.of(
                                "Listing " + path,
                                " " + ListingFormatter.facts(entry, path.toString(), session.isWritable()),
                                "End")))));
    }
}

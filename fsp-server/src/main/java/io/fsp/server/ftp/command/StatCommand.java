package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import io.fsp.server.auth.UserAccount;
import io.fsp.server.fs.DirectoryEntry;
import io.fsp.server.fs.ListingFormatter;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code STAT [<path>]} — RFC 959 §4.1.3. Without an argument: the session's status (211). With one: the
 * LIST lines of a file or directory over the control channel (213), for clients that avoid a data
 * connection.
 */
public final class StatCommand implements FtpCommand {
    @Override
    public String verb() {
        return "STAT";
    }

    @Override
    public String syntax() {
        return "STAT [<path>]";
    }

    @Override
    public Access access() {
        return Access.ANY;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        if (!request.hasArgument()) {
            List<String> lines = new ArrayList<>();
            lines.add("FSP FTP server status:");
            lines.add(" Connected from " + session.peerAddress().getAddress().getHostAddress());
            lines.add(" Logged in as " + session.user().map(UserAccount::name).orElse("(nobody)"));
            lines.add(" TYPE: " + session.type() + ", STRU: File, MODE: Stream");
            lines.add(" Control connection: " + (session.isSecure() ? "TLS" : "plain")
                    + "; data connections: " + (session.protectData() ? "TLS (PROT P)" : "plain (PROT C)"));
            lines.add(session.transfer().isPresent() ? " A transfer is in progress" : " No transfer in progress");
            lines.add("End of status");
            session.reply(new FtpReply(ReplyCode.SYSTEM_STATUS, lines));
            return;
        }
        if (!session.isLoggedIn()) {
            session.reply(Replies.notLoggedIn());
            return;
        }
        FtpPath path;
        try {
            path = session.resolve(Listings.pathArgument(request.argument()));
        } catch (java.nio.file.AccessDeniedException e) {
            session.reply(Replies.pathRefused(request.argument(), e));
            return;
        }
        session.blocking(path, () -> {
            BasicFileAttributes attrs = session.root().attributes(path);
            return attrs.isDirectory() ? ListingFormatter.read(session.root(), path)
                    : List.of(DirectoryEntry.of(path.name(), attrs));
        }, entries -> {
            Instant now = Instant.now();
            List<String> lines = new ArrayList<>();
            lines.add("Status of " + Replies.quote(path) + ":");
            for (DirectoryEntry e : entries) {
                lines.add(" " + ListingFormatter.listLine(e, now));
            }
            lines.add("End of status");
            session.reply(new FtpReply(ReplyCode.FILE_STATUS, lines));
        });
    }
}

package io.fsp.server.ftp.command;

import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;

/**
 * {@code USER <name>} — RFC 959 §4.1.1. Names other than the anonymous ones are refused on a control
 * channel without TLS unless plain logins are allowed, before the client sends its password (RFC 4217 §6).
 */
public final class UserCommand implements FtpCommand {
    @Override
    public String verb() {
        return "USER";
    }

    @Override
    public String syntax() {
        return "USER <name>";
    }

    @Override
    public Access access() {
        return Access.ANY;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        if (!CommandPaths.argumentGiven(session, request, this)) {
            return;
        }
        if (session.isLoggedIn()) {
            session.reply(Replies.badSequence("Already logged in"));
            return;
        }
        String name = request.argument().strip();
        boolean anonymous = session.server().users().find(name).map(a -> a.isAnonymous()).orElse(false);
        if (!anonymous && !session.isSecure() && !session.server().config().allowPlainLogin()) {
            session.pendingUser(null);
            session.reply(new FtpReply(ReplyCode.NOT_LOGGED_IN,
                    "TLS required: send AUTH TLS before USER (passwords are not sent in clear)"));
            return;
        }
        session.pendingUser(name);
        session.reply(new FtpReply(ReplyCode.NEED_PASSWORD, anonymous
                ? "Anonymous login ok, send your e-mail address as password"
                : "Password required for " + name));
    }
}

package io.fsp.server.fsp;

import io.fsp.ftp.ReplyCode;
import io.fsp.join.JoinMessages;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.server.join.JoinService;
import io.netty.util.AttributeKey;

/**
 * {@code JOIN} — a relay joins with a one-time code (docs/protocol.md, "JOIN"): before login, only over TLS, in two
 * lines. {@code JOIN <invite-id> <round1>} is answered {@code 335 <round1> <round2>};
 * {@code JOIN <round2> <relay-fingerprint> <HOST:PORT|PORT> <mac>} is answered {@code 235 <mac> <HOST:PORT>} when
 * the code matched and the relay was added, else 535 saying why. The line's size is bounded by the FTP core's line
 * limit, each payload by {@link JoinMessages#MAX_TEXT}; the crypto runs on the login executor.
 */
final class JoinCommand implements FtpCommand {
    private static final AttributeKey<JoinService.Pending> PENDING = AttributeKey.valueOf("fsp.join");
    private final JoinService joins;

    JoinCommand(JoinService joins) {
        this.joins = joins;
    }

    @Override
    public String verb() {
        return "JOIN";
    }

    @Override
    public String syntax() {
        return "JOIN <invite-id> <round1> | JOIN <round2> <fingerprint> <host:port> <mac>";
    }

    @Override
    public Access access() {
        return Access.ANY;
    }

    /** Always: the server's certificate is what the relay pins, and the exchange binds its fingerprint. */
    @Override
    public boolean requiresTls() {
        return true;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        String[] args = request.hasArgument() ? request.argument().trim().split(" +") : new String[0];
        for (String a : args) {
            if (a.length() > JoinMessages.MAX_TEXT) {
                session.reply(Replies.badArguments("JOIN: an argument of " + a.length() + " characters (expected: at most "
                        + JoinMessages.MAX_TEXT + ")"));
                return;
            }
        }
        JoinService.Pending pending = session.channel().attr(PENDING).getAndSet(null);
        if (args.length == 2) {
            session.checkLogin(() -> joins.begin(args[0], args[1], session.peerAddress()), step -> {
                step.pending().ifPresent(p -> session.channel().attr(PENDING).set(p));
                reply(session, step, ReplyCode.SECURITY_DATA_MORE);
            });
        } else if (args.length == 4) {
            if (pending == null) {
                session.reply(Replies.badSequence("JOIN: send JOIN <invite-id> <round1> first"));
                return;
            }
            session.checkLogin(() -> joins.finish(pending, args[0], args[1], args[2], args[3], session.peerAddress()),
                    step -> reply(session, step, ReplyCode.SECURITY_DATA_DONE));
        } else {
            session.reply(Replies.missingArgument(verb(), syntax()));
        }
    }

    private static void reply(FtpSession session, JoinService.Step step, ReplyCode success) {
        session.reply(step.syntax() ? Replies.badArguments(step.text())
                : Replies.of(step.refused() ? ReplyCode.SECURITY_CHECK_FAILED : success, step.text()));
    }
}

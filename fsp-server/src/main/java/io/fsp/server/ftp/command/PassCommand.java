package io.fsp.server.ftp.command;

import io.fsp.server.auth.PasswordHasher;
import io.fsp.server.auth.UserAccount;
import io.fsp.server.fs.UserRoot;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code PASS <password>} — RFC 959 §4.1.1. The Argon2id check runs off the event loop; an unknown user
 * costs the same work as a wrong password. A failure is answered after the login throttle's delay, and the
 * connection is closed after the configured number of failures.
 */
public final class PassCommand implements FtpCommand {
    private static final Logger log = LoggerFactory.getLogger(PassCommand.class);
    private static volatile String decoyHash;

    @Override
    public String verb() {
        return "PASS";
    }

    @Override
    public String syntax() {
        return "PASS <password>";
    }

    @Override
    public Access access() {
        return Access.AFTER_USER;
    }

    private record Outcome(UserAccount account, UserRoot root) {
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        String name = session.pendingUser().orElseThrow();
        session.pendingUser(null);
        Optional<UserAccount> account = session.server().users().find(name);
        String password = request.argument();
        session.checkLogin(() -> check(session, account, password), outcome -> {
            InetAddress address = session.peerAddress().getAddress();
            session.server().metrics().login(outcome != null);
            if (outcome != null) {
                session.server().loginThrottle().succeeded(address);
                session.loggedIn(outcome.account(), outcome.root());
                log.info("{} logged in ({})", session, outcome.account().writable() ? "read-write" : "read-only");
                session.reply(new FtpReply(ReplyCode.LOGGED_IN, "User " + outcome.account().name() + " logged in"));
                return;
            }
            int failures = session.loginFailed();
            Duration delay = session.server().loginThrottle().failed(address);
            int max = session.server().config().maxLoginFailures();
            log.info("{} login failed for '{}' ({} of {})", session, name, failures, max);
            session.channel().eventLoop().schedule(() -> {
                if (failures >= max) {
                    session.replyAndClose(new FtpReply(ReplyCode.NOT_LOGGED_IN, "Login incorrect; too many failures, closing"));
                } else {
                    session.reply(Replies.loginIncorrect());
                }
            }, delay.toMillis(), TimeUnit.MILLISECONDS);
        });
    }

    /** Runs off the event loop; {@code null} means the login failed. */
    private static Outcome check(FtpSession session, Optional<UserAccount> account, String password) {
        if (account.isEmpty()) {
            PasswordHasher.verify(decoy(), password); // same cost as a real check
            return null;
        }
        UserAccount a = account.get();
        if (!a.isAnonymous()) {
            if (!session.isSecure() && !session.server().config().allowPlainLogin()) {
                return null;
            }
            if (!PasswordHasher.verify(a.passwordHash(), password)) {
                return null;
            }
        }
        try {
            return new Outcome(a, new UserRoot(a.root()));
        } catch (IOException e) {
            log.error("{} root of user '{}' is unusable: {} (fix the users file or --root)", session, a.name(), e.toString());
            return null;
        }
    }

    private static String decoy() {
        String h = decoyHash;
        if (h == null) {
            h = PasswordHasher.hash("decoy");
            decoyHash = h;
        }
        return h;
    }
}

package io.fsp.server.ftp.command;

import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import java.util.Locale;

/**
 * A verb with one supported value of several that RFC 959 §4.1.2 names ({@code MODE S}, {@code STRU F}):
 * 200 for it, 504 for the others the RFC knows, 501 for anything else.
 */
abstract class SoleValueCommand implements FtpCommand {
    private final String verb;
    private final String value;
    private final String meaning;
    private final String others;

    /** {@code others}: the RFC's other one-letter values, space-separated. */
    SoleValueCommand(String verb, String value, String meaning, String others) {
        this.verb = verb;
        this.value = value;
        this.meaning = meaning;
        this.others = others;
    }

    @Override
    public final String verb() {
        return verb;
    }

    @Override
    public final String syntax() {
        return verb + " " + value;
    }

    @Override
    public final Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public final void execute(FtpSession session, FtpRequest request) {
        String arg = request.argument().strip().toUpperCase(Locale.ROOT);
        if (arg.equals(value)) {
            session.reply(Replies.ok(verb + " set to " + value + " (" + meaning + ")"));
        } else if (arg.length() == 1 && others.contains(arg)) {
            session.reply(Replies.notImplementedForParameter(verb + " " + arg + " not supported (expected: " + value + ")"));
        } else {
            session.reply(Replies.badArguments(verb + " '" + request.argument() + "' unknown (expected: " + value + ")"));
        }
    }
}

package io.fsp.server.ftp.command;

import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import java.util.List;

/** {@code PBSZ 0} — RFC 4217 §8, RFC 2228 §3. TLS needs no buffer size; any value is answered with 0. */
public final class PbszCommand implements FtpCommand {
    @Override
    public String verb() {
        return "PBSZ";
    }

    @Override
    public String syntax() {
        return "PBSZ 0";
    }

    @Override
    public Access access() {
        return Access.ANY;
    }

    @Override
    public List<String> features(FtpSession session) {
        return List.of("PBSZ");
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        if (!session.isSecure()) {
            session.reply(Replies.badSequence("PBSZ needs AUTH TLS first"));
            return;
        }
        if (!request.argument().strip().matches("\\d{1,10}")) {
            session.reply(Replies.badArguments("PBSZ: '" + request.argument() + "' (expected: a decimal number, 0)"));
            return;
        }
        session.protectionBufferSizeSet(true);
        session.reply(Replies.ok("PBSZ=0"));
    }
}

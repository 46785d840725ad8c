package io.fsp.server.ftp.command;

import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;

/**
 * {@code RANG <start> <end>} — draft-bryan-ftp-range-08 §3, for HASH only (draft-bryan-ftpext-hash-02 §3.3):
 * the HASH right after it digests bytes {@code start} to {@code end}, the end inclusive; {@code RANG 1 0}
 * resets to the whole file. Answered {@code 350}; a start after the end is answered {@code 501} and resets.
 * Any command but HASH clears the range (the draft: RANG must come right before the command it applies to).
 * RETR and STOR do not honour it, so FEAT does not list {@code RANG STREAM}.
 */
public final class RangCommand implements FtpCommand {
    @Override
    public String verb() {
        return "RANG";
    }

    @Override
    public String syntax() {
        return "RANG <start> <end>";
    }

    @Override
    public Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        session.hashRange(null);
        try {
            ChecksumArguments.rang(request.argument()).ifPresentOrElse(range -> {
                session.hashRange(range);
                session.reply(new FtpReply(ReplyCode.PENDING_FURTHER_INFO, "Range set to bytes " + range.offset()
                        + "-" + (range.offset() + range.length() - 1) + " for the next HASH"));
            }, () -> session.reply(new FtpReply(ReplyCode.PENDING_FURTHER_INFO, "Range reset to whole files")));
        } catch (IllegalArgumentException e) {
            session.reply(Replies.badArguments("RANG: " + e.getMessage()));
        }
    }
}

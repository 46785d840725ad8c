package io.fsp.server.fsp;

import io.fsp.extension.ExtensionCodec;
import io.fsp.extension.HeldRanges;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.server.stripe.StripeContext;

/**
 * {@code FHAV <manifest> <file-index> <from>-<to>[,<from>-<to>…]} — FSP extension (docs/protocol.md §1, "FSP
 * extension"): a resuming client names byte ranges of a file that it holds verified from an earlier run, so
 * that the session's next FRET of the same, unchanged files does not read and send them again. Repeatable;
 * all ranges of one line or none (501 naming the problem).
 */
final class FhavCommand extends FspExtensionCommand {
    FhavCommand(StripeContext stripe) {
        super(stripe);
    }

    @Override
    public String verb() {
        return "FHAV";
    }

    @Override
    public String syntax() {
        return "FHAV <manifest-sha256> <file-index> <from>-<to>[,<from>-<to>...]";
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        try {
            HeldRanges held = ExtensionCodec.parseHeldRanges(request.hasArgument() ? request.argument().trim() : "");
            state(session).resumeClaim(held.manifest()).add(held.file(), held.ranges());
            session.reply(Replies.ok("FSP " + held.ranges().size() + " ranges of file " + held.file() + " held for the next FRET"));
        } catch (IllegalArgumentException e) {
            session.reply(Replies.badArguments(e.getMessage()));
        }
    }
}

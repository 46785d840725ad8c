package io.fsp.server.fsp;

import io.fsp.extension.ExtensionCodec;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.server.stripe.StripeContext;

/**
 * {@code FPRI <name>} — FSP extension (docs/protocol.md §1, "FSP extension"): before FRET, names a file or a
 * directory (every file under it) that the next FRET sends first, relative to the path it retrieves and encoded
 * as FILE names are. Repeatable: the named files go first in the order of the commands, then every other file.
 * At most {@value io.fsp.server.stripe.StripeSession#MAX_PRIORITIES} per FRET; a bad name is answered 501 and
 * nothing is kept.
 */
final class FpriCommand extends FspExtensionCommand {
    FpriCommand(StripeContext stripe) {
        super(stripe);
    }

    @Override
    public String verb() {
        return "FPRI";
    }

    @Override
    public String syntax() {
        return "FPRI <name>";
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        if (!request.hasArgument()) {
            session.reply(Replies.missingArgument(verb(), syntax()));
            return;
        }
        try {
            String name = ExtensionCodec.parsePriority(request.argument().trim());
            int pending = state(session).prioritize(name);
            session.reply(Replies.ok("FSP priority " + pending + " for the next FRET: " + ExtensionCodec.formatPriority(name)));
        } catch (IllegalArgumentException e) {
            session.reply(Replies.badArguments("FPRI " + e.getMessage()));
        }
    }
}

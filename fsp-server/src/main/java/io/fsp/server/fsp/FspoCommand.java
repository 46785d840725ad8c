package io.fsp.server.fsp;

import io.fsp.extension.SelectionRequest;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.net.HostPort;
import io.fsp.server.select.OverlaySelection;
import io.fsp.ftp.ReplyCode;
import io.fsp.server.stripe.StripeContext;
import io.fsp.extension.FspOptions;
import io.fsp.extension.TransferOptions;
import io.fsp.server.stripe.StripeSession;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;

/**
 * {@code FSPO [key=value …]} — FSP extension (docs/protocol.md §1, "FSP extension"): sets options of the session's next
 * striped transfers (block size, compression, cipher, checksum, digest, strategy, include-direct, streams,
 * use-relays, replicas, retain, relay selection) and answers {@code 200} with all of them; without arguments it
 * only shows them. All or nothing: one bad pair and nothing changes (501 naming it); so is a {@code meridian-entry}
 * other than the server's own entry node or one of its relays. A {@code retain} the user has no right to (the
 * server's {@code retain-user}; never anonymous) is answered 550 with the reason, and nothing changes.
 */
final class FspoCommand extends FspExtensionCommand {
    FspoCommand(StripeContext stripe) {
        super(stripe);
    }

    @Override
    public String verb() {
        return "FSPO";
    }

    @Override
    public String syntax() {
        return "FSPO [key=value ...]";
    }

    @Override
    public List<String> features(FtpSession session) {
        return !stripe.requireTls() || session.isSecure() ? List.of("FSP FSPO;FRET;FGET;FHAV;FPRI;FCOL") : List.of();
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        StripeSession state = state(session);
        TransferOptions options = state.options();
        SelectionRequest selection = state.selection();
        if (request.hasArgument()) {
            try {
                FspOptions asked = FspOptions.parse(request.argument());
                options = options.with(asked);
                selection = selection.with(asked);
                options.requireRetainAtMost(stripe.maxRetain());
                options.requireProbeWithRetain();
                requireAllowedEntry(selection);
            } catch (IllegalArgumentException e) {
                session.reply(Replies.badArguments(e.getMessage()));
                return;
            }
            if (options.evacuation()) {
                Optional<String> refusal = stripe.retentionRefusal(session.user(), options.retain());
                if (refusal.isPresent()) {
                    session.reply(Replies.of(ReplyCode.FILE_UNAVAILABLE, refusal.get()));
                    return;
                }
            }
            state.options(options);
            state.selection(selection);
        }
        session.reply(Replies.ok("FSP " + options.describe()
                + (selection.equals(SelectionRequest.NONE) ? "" : " " + selection.describe())));
    }

    /** A client's meridian-entry must be one the operator chose: the server's entry node or one of its relays. */
    private void requireAllowedEntry(SelectionRequest selection) {
        if (selection.entry().isEmpty()) {
            return;
        }
        InetSocketAddress entry = selection.entry().get();
        boolean allowed = stripe.overlay().map(o -> o.allowsEntry(entry, stripe.relays()))
                .orElseGet(() -> OverlaySelection.allowsEntry(entry, Optional.empty(), stripe.relays()));
        if (!allowed) {
            throw new IllegalArgumentException("meridian-entry: " + HostPort.format(entry)
                    + " (expected: this server's meridian-entry or the address of one of its relays)");
        }
    }
}

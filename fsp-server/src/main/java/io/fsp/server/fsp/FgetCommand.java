package io.fsp.server.fsp;

import io.fsp.block.stage.SealedBlock;
import io.fsp.extension.FgetRequest;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.DataConnection;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.ftp.ReplyCode;
import io.fsp.server.ftp.data.DataTransfers;
import io.fsp.server.metrics.ServerMetrics;
import io.fsp.server.stripe.StripeContext;
import io.fsp.server.stripe.StripedTransfer;
import io.netty.util.concurrent.Promise;
import java.util.List;
import java.util.Optional;

/**
 * {@code FGET <transfer-id> <seq>[,<seq>…]} — FSP extension (docs/protocol.md §1, "FSP extension"): the origin re-fetch. The
 * server seals the named blocks of one of this session's recent FRET transfers again (same key and sequence
 * numbers, so the same bytes) and sends them, one after the other, on the data connection set up with
 * EPSV/PASV; 226 when all are sent. For blocks that every relay lost or spoiled.
 */
final class FgetCommand extends FspExtensionCommand {
    FgetCommand(StripeContext stripe) {
        super(stripe);
    }

    @Override
    public String verb() {
        return "FGET";
    }

    @Override
    public String syntax() {
        return FgetRequest.SYNTAX;
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        FgetRequest fget;
        StripedTransfer transfer;
        try {
            fget = FgetRequest.parse(request.argument());
            transfer = state(session).transfer(fget.transfer()).orElse(null);
            if (transfer == null) {
                session.reply(new FtpReply(ReplyCode.FILE_UNAVAILABLE, "transfer " + fget.transfer()
                        + ": unknown (expected: one of this session's recent FRET transfers)"));
                return;
            }
            fget.requireInside(transfer.plan().count());
        } catch (IllegalArgumentException e) {
            session.reply(Replies.badArguments(e.getMessage()));
            return;
        }
        List<Long> seqs = fget.blocks();
        Optional<DataConnection> connection = session.takeDataConnectionOrReply();
        if (connection.isEmpty()) {
            return;
        }
        StripedTransfer t = transfer;
        DataTransfers.run(session, connection.get(), FtpPath.ROOT,
                "Sending " + seqs.size() + " blocks of FSP transfer " + t.id(),
                (ch, tls, running) -> {
                    Promise<Long> done = ch.eventLoop().newPromise();
                    ServerMetrics.Sent sent = session.sent(ServerMetrics.ORIGIN);
                    stripe.engines().execute(() -> {
                        long bytes = 0;
                        try {
                            for (long seq : seqs) {
                                SealedBlock sealed = t.reseal(seq);
                                int n = sealed.block().content().readableBytes();
                                bytes += n;
                                // one block in flight at a time keeps memory at one block
                                ch.writeAndFlush(sealed.block().content()).sync();
                                sent.accept(n); // written to the socket
                            }
                            done.trySuccess(bytes);
                        } catch (Exception e) {
                            done.tryFailure(e);
                        }
                    });
                    return done;
                }, ok -> { });
    }
}

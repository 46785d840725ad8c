package io.fsp.server.fsp;

import io.fsp.extension.Announcement;
import io.fsp.extension.FspOption;
import io.fsp.extension.Manifest;
import io.fsp.extension.OriginSignature;
import io.fsp.extension.SelectionRequest;
import io.fsp.extension.TransferOptions;
import io.fsp.ftp.ReplyCode;
import io.fsp.relaylink.RelayConnection;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.ftp.DataConnection;
import io.fsp.server.ftp.FtpReply;
import io.fsp.server.ftp.FtpReplyException;
import io.fsp.server.ftp.FtpRequest;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.ftp.Replies;
import io.fsp.server.ftp.command.CommandPaths;
import io.fsp.server.ftp.data.DataTransfers;
import io.fsp.server.metrics.ServerMetrics;
import io.fsp.server.select.RelayChoice;
import io.fsp.server.select.RelayEndpoint;
import io.fsp.server.stripe.Announcements;
import io.fsp.server.stripe.PlanBudget;
import io.fsp.server.stripe.PlanBudgetExceededException;
import io.fsp.server.stripe.RelayOutcomes;
import io.fsp.server.stripe.ResumeClaim;
import io.fsp.server.stripe.StripeContext;
import io.fsp.server.stripe.StripeSession;
import io.fsp.server.stripe.StripedTransfer;
import io.fsp.server.stripe.Striping;
import io.fsp.server.stripe.TransferTooLargeException;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TokenKey;
import io.fsp.token.TokenScope;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import io.netty.util.concurrent.PromiseNotifier;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code FRET <path>} — FSP extension (docs/protocol.md §1, "FSP extension"): a striped retrieve of a file or a whole
 * directory. Per transfer a fresh AES key and token key; the token key goes to each relay (OPEN_TRANSFER),
 * the AES key and the capability token only to the client, on this TLS control channel. Replies 150, then
 * {@code 151} lines (transfer, key, token, relays, directories, files, then one {@code BLK} line per placed
 * block), then 226 once every block is placed. With {@code include-direct=on} a data connection (EPSV/PASV)
 * must be set up first; it carries blocks straight to the client. The session's FPRI names order the files.
 * With {@code retain} set the transfer is an evacuation: relays keep it (retained) until the retention ends,
 * the token lives as long, and it outlives the control connection (see {@link Striping}).
 */
final class FretCommand extends FspExtensionCommand {
    private static final Logger log = LoggerFactory.getLogger(FretCommand.class);
    static final Duration TOKEN_LIFETIME = Duration.ofHours(1);

    FretCommand(StripeContext stripe) {
        super(stripe);
    }

    @Override
    public String verb() {
        return "FRET";
    }

    @Override
    public String syntax() {
        return "FRET <path>";
    }

    /**
     * Everything prepared off the event loop: the plan and the relays that took the transfer. Closed when it is never
     * started (its client left while it was planned): nobody will push or collect it, so it is aborted at its relays.
     */
    private record Prepared(StripeContext stripe, StripedTransfer transfer, List<Announcement.Directory> directories,
                            Manifest manifest, TokenKey tokenKey, CapabilityToken token, Instant created,
                            Instant expires, Map<Integer, RelayConnection> relays, List<RelayEndpoint> endpoints,
                            List<Announcement> outcomes) implements AutoCloseable {
        /**
         * The transfer is over: connections that served it to the end wait for the next one, the others close; its
         * plan stays for re-fetches while {@code kept} keeps it, or until the server's plan budget needs the room.
         */
        void release(Striping striping, boolean completed, StripeSession kept) {
            relays.forEach((i, c) -> stripe.release(endpoints.get(i), c, completed && !striping.gaveUp(i)));
            transfer.charge().ended(() -> kept.forget(transfer.id()));
        }

        @Override
        public void close() {
            transfer.charge().close();
            if (relays.isEmpty()) {
                return;
            }
            log.info("transfer {}: its client left while it was planned; aborting it at {} relays", transfer.id(),
                    relays.size());
            relays.forEach((i, c) -> c.abortTransfer(transfer.id()).whenComplete((ok, e) -> {
                if (e != null) {
                    log.info("transfer {}: relay {} did not take the abort: {}", transfer.id(), endpoints.get(i).hostPort(),
                            e.toString());
                }
                stripe.release(endpoints.get(i), c, e == null);
            }));
        }
    }

    @Override
    public void execute(FtpSession session, FtpRequest request) {
        long arrived = System.nanoTime();
        Optional<FtpPath> resolved = CommandPaths.required(session, request, this);
        if (resolved.isEmpty()) {
            return;
        }
        FtpPath path = resolved.get();
        TransferOptions options = state(session).options();
        if (options.evacuation() && (!options.useRelays() || options.includeDirect())) {
            String retain = FspOption.RETAIN.pair(options.retain());
            session.reply(Replies.badArguments(!options.useRelays()
                    ? "FRET with " + retain + " (an evacuation) needs use-relays=on (FSPO use-relays=on)"
                    : "FRET with " + retain + " (an evacuation) needs include-direct=off: nobody collects on a data"
                            + " connection (FSPO include-direct=off)"));
            return;
        }
        String keyAlgorithm = stripe.identity().privateKey().getAlgorithm();
        if (options.evacuation() && !OriginSignature.canSign(keyAlgorithm)) {
            // the collector trusts an evacuation only as signed with this server's certificate key
            session.reply(new FtpReply(ReplyCode.NOT_IMPLEMENTED_FOR_PARAMETER, "FRET with retain (an evacuation)"
                    + " needs a certificate key that can sign its announcements: this server's is " + keyAlgorithm
                    + " (expected: EC, RSA or Ed25519)"));
            return;
        }
        if (options.evacuation()) { // checked at FSPO too; the session's user decides, as it is now
            Optional<String> refusal = stripe.retentionRefusal(session.user(), options.retain());
            if (refusal.isPresent()) {
                session.reply(new FtpReply(ReplyCode.FILE_UNAVAILABLE, refusal.get()));
                return;
            }
        }
        Optional<DataConnection> direct = Optional.empty();
        if (options.includeDirect()) {
            direct = session.takeDataConnection();
            if (direct.isEmpty()) {
                session.reply(new FtpReply(ReplyCode.CANT_OPEN_DATA_CONNECTION,
                        "include-direct=on needs a data connection: use EPSV or PASV first"));
                return;
            }
        }
        Optional<DataConnection> data = direct;
        List<String> priorities = state(session).takePriorities();
        session.blocking(path, () -> prepare(session, path, options, priorities),
                prepared -> start(session, path, request.argument(), prepared, data, arrived),
                () -> data.ifPresent(DataConnection::close));
    }

    private Prepared prepare(FtpSession session, FtpPath path, TransferOptions options, List<String> priorities)
            throws Exception {
        PlanBudget.Charge charge = stripe.planBudget().charge(session.user().orElseThrow().name());
        try {
            return prepare(session, path, options, plan(session, path, options, priorities, charge));
        } catch (Exception | Error e) {
            charge.close(); // never started: its share of the server's plan budget goes back
            throw e;
        }
    }

    private StripedTransfer plan(FtpSession session, FtpPath path, TransferOptions options, List<String> priorities,
                                 PlanBudget.Charge charge) throws IOException {
        try {
            return StripedTransfer.plan(session.root(), path, options, stripe.maxBlocksPerTransfer(), stripe.random(),
                    priorities, charge);
        } catch (TransferTooLargeException e) {
            throw new FtpReplyException(ReplyCode.FILE_UNAVAILABLE, Replies.quote(path) + ": " + e.getMessage());
        } catch (PlanBudgetExceededException e) {
            log.info("{} FRET {} refused: {}", session, path, e.getMessage());
            throw new FtpReplyException(ReplyCode.FILE_BUSY, "Server busy: " + e.getMessage() + "; try again later");
        }
    }

    /** The rest of FRET's preparation, once {@code transfer} is planned. */
    private Prepared prepare(FtpSession session, FtpPath path, TransferOptions options, StripedTransfer transfer)
            throws Exception {
        List<Announcement.Directory> directories;
        Manifest manifest;
        try {
            directories = transfer.directories().stream().map(Announcement.Directory::new).toList();
            manifest = manifest(transfer);
        } catch (IllegalArgumentException e) { // a name the extension cannot carry: refused before anything is sent
            throw new FtpReplyException(ReplyCode.FILE_UNAVAILABLE, Replies.quote(path) + ": " + e.getMessage());
        }
        holdWhatTheClientHas(session, transfer, manifest);
        TokenKey tokenKey = TokenKey.random();
        // An evacuation's blocks wait at the relays for a collector that comes later: the token lives as long.
        boolean retained = options.evacuation();
        // whole seconds: an evacuation signs both instants (docs/protocol.md §1, "Evacuation")
        Instant created = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Instant expires = created.plus(retained ? options.retain() : TOKEN_LIFETIME);
        CapabilityToken token = CapabilityToken.issue(tokenKey, transfer.id(), expires, TokenScope.ALL);
        // Connect to every relay at once; the ones that fail are left out of this transfer.
        List<RelayEndpoint> endpoints = options.useRelays() ? relaysFor(session) : List.of();
        List<CompletableFuture<RelayConnection>> opening = new ArrayList<>();
        long window = stripe.pushWindowFor(transfer.options().blockSize());
        for (RelayEndpoint e : endpoints) {
            opening.add(stripe.relayConnection(e, conn -> {
                conn.pushWindowBytes(window);
                return conn.openTransfer(transfer.id(), tokenKey, expires, transfer.maxBytesPerRelay(), retained);
            }));
        }
        Map<Integer, RelayConnection> relays = new TreeMap<>();
        // What each relay said goes to the client too (REFUSED, SPACE): the server's log may be gone when it matters.
        List<Announcement> outcomes = new ArrayList<>();
        for (int i = 0; i < opening.size(); i++) {
            try {
                relays.put(i, opening.get(i).get(stripe.relayConfig().connectTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS));
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                log.warn("{} relay {} left out of transfer {}: {}", session, endpoints.get(i).hostPort(), transfer.id(),
                        cause.getMessage());
                outcomes.add(RelayOutcomes.refused(endpoints.get(i), e));
                opening.get(i).thenAccept(RelayConnection::close); // late: this transfer went on without it
            }
        }
        if (retained) { // what an evacuation's copies can count on; a round trip no plain transfer waits for
            outcomes.addAll(RelayOutcomes.spaces(relays, transfer.id(), transfer.maxBytesPerRelay(),
                    stripe.relayConfig().requestTimeout()));
        }
        return new Prepared(stripe, transfer, directories, manifest, tokenKey, token, created, expires, relays, endpoints,
                outcomes);
    }

    /**
     * A resuming client named what it holds from an earlier run (FHAV): if the files are unchanged (same
     * manifest), those blocks are announced as {@code have} and never read or sent.
     */
    private void holdWhatTheClientHas(FtpSession session, StripedTransfer transfer, Manifest manifest) {
        ResumeClaim claim = state(session).takeResumeClaim();
        if (claim == null) {
            return;
        }
        if (claim.manifestDigest().equals(manifest.digest())) {
            log.info("{} transfer {}: the client holds {} of {} blocks from an earlier run; they are not sent again", session,
                    transfer.id(), transfer.hold(claim), transfer.plan().count());
        } else {
            log.info("{} transfer {}: FHAV ignored, the files changed since the client's earlier run", session, transfer.id());
        }
    }

    /** The FILE lines of the transfer. */
    private static Manifest manifest(StripedTransfer transfer) {
        List<Announcement.File> files = new ArrayList<>();
        for (int i = 0; i < transfer.files().size(); i++) {
            StripedTransfer.SourceFile f = transfer.files().get(i);
            files.add(new Announcement.File(i, f.size(), f.modifiedMillis(), f.name()));
        }
        return new Manifest(files);
    }

    /**
     * The static list, or the relays the overlay finds within the client's constraints (FSPO near-sender,
     * near-client, relays, client-probe), filled up from the static list.
     */
    private List<RelayEndpoint> relaysFor(FtpSession session) throws InterruptedException {
        SelectionRequest request = state(session).selection();
        if (!request.complete()) {
            return stripe.relays();
        }
        if (stripe.overlay().isEmpty()) {
            log.info("{} asked for relays by RTT, but this server has no meridian endpoint: using the static list", session);
            return stripe.relays();
        }
        InetAddress clientIp = ((InetSocketAddress) session.channel().remoteAddress()).getAddress();
        try {
            RelayChoice choice = stripe.overlay().get().select(request, clientIp, stripe.relays()).get();
            log.info("{} relays for near-sender={} near-client={}: {} ({} from the overlay){}", session,
                    request.nearSenderMs(), request.nearClientMs(), choice.relays(), choice.fromOverlay(),
                    choice.note().isEmpty() ? "" : "; " + choice.note());
            return choice.relays();
        } catch (java.util.concurrent.ExecutionException e) {
            log.warn("{} relay selection failed, using the static list: {}", session, e.getCause().toString());
            return stripe.relays();
        }
    }

    private void start(FtpSession session, FtpPath path, String asked, Prepared p, Optional<DataConnection> direct,
                       long arrived) {
        StripedTransfer t = p.transfer();
        state(session).remember(t);
        String summary = "FSP transfer " + t.id() + " of " + Replies.quote(path) + ": " + t.files().size() + " files, "
                + t.totalBytes() + " bytes, " + t.plan().count() + " blocks";
        List<Announcement> info = new ArrayList<>();
        info.add(new Announcement.Transfer(t.id(), t.isDirectory(), t.files().size(), t.directories().size(), t.totalBytes(),
                t.plan().count(), t.options().announced()));
        info.add(new Announcement.Key(t.key() == null ? null : t.key().encoded()));
        info.add(new Announcement.Token(p.token()));
        for (Map.Entry<Integer, RelayConnection> r : p.relays().entrySet()) {
            RelayEndpoint e = p.endpoints().get(r.getKey());
            info.add(new Announcement.Relay(r.getKey(), e.host(), e.port(), e.fingerprint()));
        }
        info.addAll(p.outcomes());
        info.addAll(p.directories());
        info.addAll(p.manifest().files());
        // An evacuation's lines end up in a manifest sealed by whoever holds the safe site's public key: the
        // collector trusts them only as signed by this server's certificate (docs/protocol.md §1, "Evacuation").
        Announcements announcements = t.options().evacuation()
                ? ControlChannelAnnouncements.signed(session, stripe.identity().privateKey(),
                        session.user().orElseThrow().name(), asked, p.created(),
                        p.expires().truncatedTo(ChronoUnit.SECONDS))
                : ControlChannelAnnouncements.plain(session);
        Striping striping = new Striping(stripe, session.channel(), session.toString(), t, p.relays(), p.endpoints(),
                announcements, session.sent(ServerMetrics.RELAY), session.sent(ServerMetrics.DIRECT));
        if (direct.isPresent()) {
            // The data connection may be ready before the lines after the 150 are out: striping waits for them, or
            // a BLK line could reach the client before the FILE line it refers to.
            Promise<Void> announced = session.channel().eventLoop().newPromise();
            DataTransfers.runStriped(session, direct.get(), path, summary,
                    (ch, tls, transfer) -> counted(session, arrived, striping,
                            startAfter(announced, striping, Optional.of(ch), ch.eventLoop())),
                    ok -> p.release(striping, ok, state(session)));
            PromiseNotifier.cascade(striping.announceOpening(info), announced);
        } else {
            session.reply(new FtpReply(ReplyCode.OPENING_DATA_CONNECTION, summary));
            Future<Long> striped = startAfter(striping.announceOpening(info), striping, Optional.empty(),
                    session.channel().eventLoop());
            counted(session, arrived, striping, striped).addListener(f -> {
                p.release(striping, f.isSuccess(), state(session));
                if (f.isSuccess()) {
                    session.reply(new FtpReply(ReplyCode.TRANSFER_COMPLETE, "FSP transfer " + t.id() + " complete: "
                            + striping.placedSummary()));
                } else {
                    session.reply(new FtpReply(ReplyCode.LOCAL_ERROR, "FSP transfer " + t.id() + " failed: "
                            + f.cause().getMessage()));
                }
            });
        }
    }

    /** Striping, with the data connection {@code direct} if any, started once {@code announced} is done. */
    private static Future<Long> startAfter(Future<Void> announced, Striping striping, Optional<Channel> direct,
                                           EventLoop loop) {
        Promise<Long> done = loop.newPromise();
        announced.addListener(f -> {
            if (f.isSuccess()) {
                PromiseNotifier.cascade(striping.start(direct), done);
            } else {
                done.tryFailure(f.cause());
            }
        });
        return done;
    }

    private static <T> Future<T> counted(FtpSession session, long arrived, Striping striping, Future<T> done) {
        session.server().metrics().striping(arrived, done, striping::placed);
        return done;
    }
}

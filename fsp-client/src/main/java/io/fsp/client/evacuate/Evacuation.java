package io.fsp.client.evacuate;

import io.fsp.client.control.ControlChannel;
import io.fsp.client.control.ControlException;
import io.fsp.client.control.FspConversation;
import io.fsp.client.control.FspUrl;
import io.fsp.ftp.ReplyCode;
import io.fsp.client.evacuate.EvacuationManifest.State;
import io.fsp.crypto.RecipientKey;
import io.fsp.extension.Announcement;
import io.fsp.extension.OriginSignature;
import io.fsp.extension.FspOption;
import io.fsp.extension.FspOptions;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.PinnedTrustManager;
import java.io.IOException;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code fsp evacuate} (docs/protocol.md §5): asks the origin to stripe a file or tree to its relays and keep it
 * there ({@code FSPO retain=…}), with the files named by {@code priority} first ({@code FPRI}), and reads the
 * FRET's announcements as {@code fsp get} does — but fetches nothing. What it read, as far as the server's last
 * {@code SIG} line signed it ({@link OriginSignature}, checked here with the certificate of the connection), goes
 * with that signature and certificate into the sealed {@link EvacuationManifest}, rewritten every {@link #CHECKPOINT} while the server stripes (state running) and at
 * the end (complete at the 226, partial when the deadline or a failure stopped it), so that a crash of this process
 * still leaves a manifest of what was placed. At the deadline it writes the manifest and closes the control
 * connection: the server stops striping, and what was placed stays on the relays.
 * <p>
 * A dry run sends the same FSPO with {@code probe=on}: the server checks and opens it as the real run (retention
 * right, relays opened retained, so that they refuse as they would), reads what the relays said and the BLK lines for
 * {@link #PROBE} (or until the 226), closes (the server aborts the probe at the relays, as for any client that
 * leaves) and measures the placement rate.
 */
public final class Evacuation {
    private static final Logger log = LoggerFactory.getLogger(Evacuation.class);
    /** How often the manifest is rewritten while the server stripes. */
    public static final Duration CHECKPOINT = Duration.ofSeconds(5);
    /** How long a dry run measures placement. */
    public static final Duration PROBE = Duration.ofSeconds(3);

    /**
     * What to evacuate and how.
     *
     * @param retain the retention as FSPO takes it ({@code 7d}); a dry run asks for it too
     * @param retainFor the same as a duration, for the manifest's retain-until
     * @param priority names relative to the origin's path, sent first (FPRI), in this order
     * @param deadline when to stop, counted from the start; null: none
     * @param recipient the safe site's public key (a dry run may have none)
     * @param fspOptions more FSPO options (block-size, compression)
     */
    public record Options(FspUrl origin, char[] password, Fingerprint trust, Path manifest, RecipientKey recipient,
                          int replicas, String retain, Duration retainFor, List<String> priority, Duration deadline,
                          FspOptions fspOptions, Duration connectTimeout) {
        public Options {
            priority = List.copyOf(priority);
        }

        /** FSPO for the evacuation: {@code retain=…}, relays only, {@code replicas}, the other options. */
        FspOptions fspo() {
            return FspOptions.NONE.with(FspOption.RETAIN, retainFor).with(FspOption.REPLICAS, replicas)
                    .with(FspOption.INCLUDE_DIRECT, false).with(FspOption.USE_RELAYS, true).with(fspOptions);
        }

        /** FSPO for the dry run: the evacuation's, checked and opened as it would be, kept nowhere. */
        FspOptions probe() {
            return fspo().with(FspOption.PROBE, true);
        }
    }

    private final Options options;
    /** The announcements read so far; the checkpoint thread copies them under this lock. */
    private final List<Announcement> read = new ArrayList<>();
    /** The latest origin signature read (over the first {@code signature.lines()} of them); under the same lock. */
    private OriginSignature signature;
    /** The lines read, hashed as the server signs them. */
    private final OriginSignature.Lines lines = new OriginSignature.Lines();
    /** The certificate the origin presented on this connection (the one --trust pinned). */
    private X509Certificate certificate;
    private Instant created;
    private int checkpointed = -1;
    // For a progress display: the data set's size, and the bytes placed on relays by first holder.
    private volatile long totalBytes;
    private final Map<String, LongAdder> placed = new ConcurrentHashMap<>();

    public Evacuation(Options options) {
        this.options = options;
    }

    /** Evacuates; the report says what is out. Throws when nothing could be started (connection, login, refused). */
    public EvacuationReport run() throws IOException, InterruptedException {
        long start = System.nanoTime();
        long deadline = options.deadline() == null ? Long.MAX_VALUE : start + options.deadline().toNanos();
        try (ControlChannel control = connect()) {
            certificate = control.peerCertificate();
            FspConversation fsp = conversation(control);
            fsp.options(options.fspo());
            fsp.prioritize(options.priority());
            created = Instant.now().truncatedTo(ChronoUnit.SECONDS); // as the manifest holds it
            fsp.retrieve(options.origin().path());
            ScheduledExecutorService checkpoints = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "fsp-evacuate-checkpoint");
                t.setDaemon(true);
                return t;
            });
            checkpoints.scheduleWithFixedDelay(this::checkpoint, CHECKPOINT.toMillis(), CHECKPOINT.toMillis(), TimeUnit.MILLISECONDS);
            State state = State.PARTIAL;
            String error = null;
            boolean deadlineReached = false;
            try {
                deadlineReached = fsp.announcements(this::announcement, () -> deadline) == FspConversation.End.DEADLINE;
                state = deadlineReached ? State.PARTIAL : State.COMPLETE;
            } catch (IOException e) {
                error = e.getMessage(); // what was read is still worth a manifest
            } finally {
                checkpoints.shutdown(); // a checkpoint being written completes; none starts
                checkpoints.awaitTermination(1, TimeUnit.MINUTES);
            }
            EvacuationManifest written = manifest(state);
            written.write(options.manifest(), options.recipient()); // before the control connection closes
            return new EvacuationReport(options.manifest(), written.announcements(), options.priority(), state,
                    deadlineReached, (System.nanoTime() - start) / 1e9, written.retainUntil(), error, options.replicas());
        }
    }

    /**
     * A dry run: asks the server for the evacuation as the real run will (the same retention, {@code probe=on}), reads
     * what the relays said and measures how fast blocks are placed, then leaves (the server aborts the probe at the
     * relays). A refusal by the server is in the report, not thrown.
     */
    public DryRunReport probe() throws IOException, InterruptedException {
        try (ControlChannel control = connect()) {
            FspConversation fsp = conversation(control);
            Probe probe = new Probe();
            long fret = System.nanoTime();
            FspConversation.End end;
            try {
                fsp.options(options.probe());
                fsp.prioritize(options.priority());
                fret = System.nanoTime();
                fsp.retrieve(options.origin().path());
                // the probe time counts from the first block; before it, only the server's silence ends the wait
                end = fsp.announcements(probe::line,
                        () -> probe.firstBlock == 0 ? Long.MAX_VALUE : probe.firstBlock + PROBE.toNanos());
            } catch (ControlException e) {
                if (e.code() < 400) {
                    throw e;
                }
                return DryRunReport.of(probe.transfer, 0, probe.blocks, probe.placed, 0, false, options, e.getMessage(),
                        probe.relays, probe.unplaced);
            }
            long now = System.nanoTime();
            long first = probe.firstBlock == 0 ? now : probe.firstBlock;
            return DryRunReport.of(probe.transfer, (first - fret) / 1e9, probe.blocks, probe.placed, (now - first) / 1e9,
                    end == FspConversation.End.COMPLETE, options, null, probe.relays, probe.unplaced);
        }
    }

    /** What a dry run counts of the announcements. */
    private static final class Probe {
        long firstBlock;
        long placed;
        int blocks;
        long unplaced;
        Announcement.Transfer transfer;
        final RelayOutcomes relays = new RelayOutcomes();

        boolean line(String text) throws ControlException {
            if (OriginSignature.isSignature(text)) {
                return true;
            }
            Announcement a = FspConversation.parse(text);
            relays.add(a);
            if (a instanceof Announcement.Transfer t) {
                transfer = t;
            } else if (a instanceof Announcement.Block b) {
                if (firstBlock == 0) {
                    firstBlock = System.nanoTime();
                }
                blocks++;
                boolean onRelays = b.placement() instanceof Announcement.Placement.Relays;
                placed += onRelays ? b.length() : 0;
                unplaced += onRelays ? 0 : 1;
            }
            return true;
        }
    }

    /** The data set's bytes, once FRET announced them; for a progress display, from any thread. */
    public long totalBytes() {
        return totalBytes;
    }

    /** Bytes placed on relays so far (replicas not counted again); from any thread. */
    public long bytesPlaced() {
        return placed.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /** Bytes placed so far by the relay that took them first. */
    public Map<String, Long> bytesPlacedByRelay() {
        Map<String, Long> out = new TreeMap<>();
        placed.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    private ControlChannel connect() throws IOException {
        ControlChannel control = ControlChannel.connect(options.origin().host(), options.origin().port(),
                PinnedTrustManager.of(Set.of(options.trust())), options.connectTimeout());
        try {
            control.login(options.origin().user(), options.password(), false);
            return control;
        } catch (IOException | RuntimeException e) {
            control.close();
            throw e;
        }
    }

    private FspConversation conversation(ControlChannel control) {
        return new FspConversation(control, "", options.connectTimeout());
    }

    /** One announcement of the FRET: a signature is checked, anything else kept (as read) for the manifest. */
    private boolean announcement(String text) throws ControlException {
        if (OriginSignature.isSignature(text)) {
            signed(text);
            return true;
        }
        Announcement a = FspConversation.parse(text);
        lines.add(text); // as read: the codec accepts only the form it writes
        synchronized (read) {
            read.add(a);
        }
        if (a instanceof Announcement.Transfer t) {
            totalBytes = t.bytes();
        } else if (a instanceof Announcement.Block b && b.placement() instanceof Announcement.Placement.Relays p) {
            placed.computeIfAbsent("relay:" + p.first(), k -> new LongAdder()).add(b.length());
        }
        return true;
    }

    /**
     * A {@code SIG} line: checked at once against the certificate of this connection, so that a manifest never
     * holds a signature the collector would refuse; it covers the lines read so far.
     */
    private void signed(String text) throws ControlException {
        OriginSignature s;
        try {
            s = OriginSignature.parse(text);
        } catch (IllegalArgumentException e) {
            throw new ControlException("signature '" + text.substring(0, Math.min(200, text.length())) + "': "
                    + e.getMessage(), ReplyCode.FSP_ANNOUNCEMENT.value(), e);
        }
        if (s.lines() != lines.count()) {
            throw new ControlException("the server signed " + s.lines() + " announcements, " + lines.count()
                    + " were read", ReplyCode.FSP_ANNOUNCEMENT.value(), null);
        }
        if (!s.verifies(certificate, options.origin().user(), options.origin().path(), lines.sha256())) {
            throw new ControlException("the server's signature over its announcements does not verify with its"
                    + " certificate " + options.trust(), ReplyCode.FSP_ANNOUNCEMENT.value(), null);
        }
        synchronized (read) {
            signature = s;
        }
    }

    /** What the origin signed so far: only that goes into the manifest and the report. */
    private List<Announcement> snapshot() {
        synchronized (read) {
            return List.copyOf(read.subList(0, signature == null ? 0 : (int) signature.lines()));
        }
    }

    /**
     * The manifest of what the origin signed so far, in {@code state} as this run sees it. The origin's signature
     * gives its created and retain-until, and the state (docs/protocol.md §5): complete only as the origin signed it,
     * partial where it signed running but this run stopped.
     */
    private EvacuationManifest manifest(State state) {
        synchronized (read) {
            if (signature == null || signature.version() == 1) { // nothing signed yet, or an older origin
                return new EvacuationManifest(options.origin(), certificate, created, created.plus(options.retainFor()),
                        state == State.COMPLETE && signature == null ? State.PARTIAL : state, snapshot(), signature);
            }
            OriginSignature.Terms t = signature.terms();
            State signed = State.of(t.state());
            return new EvacuationManifest(options.origin(), certificate, t.created(), t.retainUntil(),
                    signed == State.RUNNING && state != State.RUNNING ? State.PARTIAL : signed, snapshot(), signature);
        }
    }

    /** Rewrites the manifest (state running) if something was read since the last time. */
    private void checkpoint() {
        EvacuationManifest m = manifest(State.RUNNING);
        if (m.announcements().size() == checkpointed) {
            return;
        }
        try {
            m.write(options.manifest(), options.recipient());
            checkpointed = m.announcements().size();
        } catch (IOException | RuntimeException e) {
            log.warn("checkpoint of {} failed: {}", options.manifest(), e.toString());
        }
    }
}

package io.fsp.client.collect;

import io.fsp.block.BlockLimits;
import io.fsp.block.stage.Encryptor;
import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Digest;
import io.fsp.client.collect.BlockLifecycle.Action;
import io.fsp.client.collect.BlockLifecycle.Next;
import io.fsp.client.collect.DestinationFiles.RemoteFile;
import io.fsp.client.control.ControlChannel;
import io.fsp.client.control.ControlException;
import io.fsp.client.control.FspConversation;
import io.fsp.ftp.ReplyCode;
import io.fsp.client.journal.JournalRecord;
import io.fsp.client.journal.ResumeJournal;
import io.fsp.client.verify.FiverVerifier;
import io.fsp.client.verify.VerificationMode;
import io.fsp.client.verify.VerifierConfig;
import io.fsp.client.write.DestinationTree;
import io.fsp.crypto.NativeCrypto;
import io.fsp.crypto.TransferKey;
import io.fsp.extension.Announcement;
import io.fsp.extension.ExtensionCodec;
import io.fsp.extension.FileSegment;
import io.fsp.extension.Manifest;
import io.fsp.extension.FspOption;
import io.fsp.net.HostPort;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TransferId;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collects one striped transfer (architecture §3, steps 7–11): opens the TLS control channel, logs in, sets the
 * FSP options, tells the server what an earlier run holds ({@link ResumeManifest}), sends FRET and reads its
 * announcements. Each announced block gets a {@link BlockLifecycle}, which says where to fetch it from and, after
 * a failure, where next; the {@link BlockDriver} does what it says (relays, direct stream, opening, the
 * {@link FiverVerifier}). Once FRET is answered, what no relay or direct connection delivered comes from the
 * {@link OriginFetcher}. The summary says whether every block arrived verified.
 * <p>
 * The announcements may instead come recorded ({@link RecordedTransfer}, {@code fsp collect}; architecture §7: a
 * control channel and a manifest are two carriers of one record stream): then there is no control channel and no
 * origin, only the files the record holds whole are collected, and a block no relay delivers intact stays
 * unverified. Everything else is the same.
 */
public final class Collector {
    private static final Logger log = LoggerFactory.getLogger(Collector.class);

    /**
     * Threads writing blocks: a small file's first write creates it, which the kernel does on the writing thread,
     * so one thread would make a tree of small files wait for one file creation at a time.
     */
    private static final int WRITER_THREADS = 4;
    /**
     * Most fetch threads, however many relays and streams a transfer names: each waits on one block at a time, so
     * more only hold more blocks in memory (a server collecting for FCOL runs a few collections at once).
     */
    static final int MAX_FETCH_THREADS = 64;

    private final CollectOptions options;
    private final BlockLimits limits = BlockLimits.DEFAULT;

    // What the server announced.
    private TransferId transferId;
    private TransferKey key;
    private CapabilityToken token;
    private ChecksumAlgorithm checksum = ChecksumAlgorithm.CRC32C;
    private ChecksumAlgorithm digest = ChecksumAlgorithm.SHA256;
    /** The blocks to collect: the transfer's, or those of the files a recorded transfer holds whole. */
    private long totalBlocks = -1;
    /** The blocks of the transfer's plan (sequence numbers below). */
    private long plannedBlocks = -1;
    private long totalBytes;
    /** The transfer's number of files (its FSP line); -1 until announced. */
    private int announcedFiles = -1;
    /** Whether the KEY line has come (its key may be none). */
    private boolean keyAnnounced;
    private final List<Announcement.File> manifestFiles = new ArrayList<>();
    private final BlockTiling tiling = new BlockTiling();
    /** Null: announcements come from FRET. */
    private final RecordedTransfer recorded;
    /** The files of a recorded transfer that are collected (the others are left out); null: every file. */
    private final Set<Integer> collected;
    private final Map<Long, BlockLifecycle> blocks = new ConcurrentHashMap<>();
    /** Relay blocks announced while striping goes on, fetched after it when overlap is off. */
    private final List<BlockLifecycle> deferred = new ArrayList<>();

    // Collaborators.
    private final TransferConditions conditions;
    private final TransferStatistics stats = new TransferStatistics();
    private final CollectDestination destination;
    private final RelaySources relays;
    private final DirectStream direct = new DirectStream((b, wire) -> this.driver.directArrived(b, wire));
    private final OriginFetcher origin;
    private ResumeJournal journal;
    private BlockDriver driver;

    private long startNanos;
    /** When the user's command started (its process, or its launcher's): the summary's first block counts from it. */
    private long commandStartMillis = ProcessHandle.current().info().startInstant().map(java.time.Instant::toEpochMilli)
            .orElseGet(System::currentTimeMillis);
    private volatile long fretNanos;
    private volatile long stripedNanos;

    /** A collector that retrieves with FRET on the control channel ({@code fsp get}). */
    public Collector(CollectOptions options) {
        this(options, null);
    }

    /**
     * A collector of a recorded transfer ({@code fsp collect}): no control channel, no origin; the options'
     * connection fields are not used, their {@code server} and {@code remotePath} name the journal.
     */
    public Collector(CollectOptions options, RecordedTransfer recorded) {
        this(options, recorded, null);
    }

    /**
     * A collector of a recorded transfer whose files go into {@code tree} (a server collecting into a user's
     * root, relative to directory handles: {@code fsp transfer}): a directory's entries in the tree's root, a single
     * file by the last segment of the options' destination, beside which the journal lies (where the tree's user
     * cannot reach it).
     */
    public Collector(CollectOptions options, RecordedTransfer recorded, DestinationTree tree) {
        this.options = options;
        this.recorded = recorded;
        this.collected = recorded == null ? null : recorded.wholeFiles();
        this.conditions = new TransferConditions(options.relayRecovery(), options.relayTimeout().toMillis());
        this.destination = new CollectDestination(options, tree);
        this.relays = new RelaySources(options.streams(), options.relayTimeout(), options.connectTimeout(),
                !options.relayBlocksOverTls());
        this.origin = new OriginFetcher(limits, options.connectTimeout(), options.relayTimeout().multipliedBy(3));
    }

    /** Bytes verified (or written) so far, for a progress display; safe from any thread. */
    public long bytesDone() {
        return stats.bytesDone();
    }

    public long totalBytes() {
        return totalBytes;
    }

    /** Bytes per source so far, for a progress display. */
    public Map<String, Long> bytesBySource() {
        return stats.bytesBySource();
    }

    /** Blocks on disk so far (verified, unless verification is off). */
    public long blocksDone() {
        return stats.blocksDone();
    }

    /** Blocks found damaged so far whose good copy is now on disk. */
    public long blocksRecovered() {
        return stats.blocksRecovered();
    }

    /** Counts the summary's "first block … after the process started" from {@code epochMillis}, not this JVM's start. */
    public void countFrom(long epochMillis) {
        commandStartMillis = epochMillis;
    }

    /** Names {@code pid} as the destination lock's holder, not this JVM (an agent's command: its launcher). */
    public void heldBy(long pid) {
        destination.heldBy(pid);
    }

    /** Files a transfer leaves while incomplete: the journal, so a rerun resumes. */
    public Path journalPath() {
        return manifest().journalFile();
    }

    /** Runs the transfer to its end; the summary says whether everything arrived verified. */
    public CollectSummary run() throws IOException, InterruptedException {
        startNanos = System.nanoTime();
        milestone("collector started");
        NativeCrypto.loadInBackground();
        Encryptor.warmUpInBackground();
        try {
            if (recorded == null) {
                retrieve();
            } else {
                replay();
            }
        } finally {
            try {
                finish();
            } finally {
                destination.close();
            }
        }
        return summary();
    }

    /** The announcements of a recorded transfer, in their order; then every block is fetched from the relays. */
    private void replay() throws IOException, InterruptedException {
        fretNanos = System.nanoTime();
        for (Announcement a : recorded.announcements()) {
            announcement(a, ExtensionCodec.format(a));
        }
        stripedNanos = System.nanoTime();
        everyBlockAnnounced();
        collectAnnounced();
    }

    /**
     * Logs in, sets the options, sends FRET and collects; then what no relay delivered comes from the origin. The
     * commands up to FRET go out together, without waiting for replies (at 100 ms a round trip each): their replies
     * are checked in order as they come back, and FRET waits on the server's side for the data connection.
     */
    private void retrieve() throws IOException, InterruptedException {
        try (ControlChannel control = ControlChannel.connect(options.host(), options.port(), options.trust(),
                options.connectTimeout())) {
            milestone("control connection secured");
            control.login(options.user(), options.password(), false);
            FspConversation fsp = new FspConversation(control, "", options.connectTimeout());
            if (!options.fspOptions().isEmpty() || options.includeDirect()) {
                fsp.pipelineOptions(options.fspOptions().with(FspOption.INCLUDE_DIRECT, options.includeDirect())
                        .with(FspOption.STREAMS, options.streams()));
            }
            destination.heldClaimer().claimHeld(fsp);
            fretNanos = System.nanoTime();
            Socket directSocket = null;
            if (options.includeDirect()) {
                directSocket = fsp.retrieveDirect(options.remotePath(), options.connectTimeout());
                milestone("logged in, data connection open");
            } else {
                fsp.retrieve(options.remotePath());
            }
            try {
                milestone("FRET answered " + ReplyCode.OPENING_DATA_CONNECTION.value());
                retrieve(fsp, directSocket);
            } finally {
                if (directSocket != null) {
                    directSocket.close();
                }
            }
            origin.run(fsp, transferId, driver, () -> conditions.diskFull() != null);
            // The server aborts the transfer at its relays once this connection closes: the last confirmations
            // first, so that the relays have let it go and nothing is freed by the abort.
            relays.awaitConfirmations();
        }
    }

    /** FRET answered: reads the announcements and starts each block's fetch; returns once every block is done or waits for the origin. */
    private void retrieve(FspConversation fsp, Socket directSocket) throws IOException, InterruptedException {
        if (directSocket != null) {
            direct.start(directSocket, limits);
        }
        fsp.announcements(text -> {
            announcement(text);
            return true;
        }, FspConversation.NO_DEADLINE);
        stripedNanos = System.nanoTime(); // the server has placed every block
        milestone("226: every block placed");
        everyBlockAnnounced();
        collectAnnounced();
    }

    /** Every block is announced: each file must be tiled whole, and relay blocks held back until now are fetched. */
    private void everyBlockAnnounced() throws ControlException {
        tiling.checkCovers(files().all(), options.remotePath());
        deferred.forEach(b -> driver.act(b, new Next(Action.FETCH_FROM_RELAY, List.of())));
        deferred.clear();
    }

    /** Waits until every announced block is done or waits for the origin. */
    private void collectAnnounced() throws IOException, InterruptedException {
        prepare();
        direct.awaitEnd(options.relayTimeout().toMillis() + 5000);
        // A direct block announced but never seen (the connection broke) comes from the origin.
        blocks.values().forEach(b -> driver.act(b, b.directEnded()));
        driver.awaitIdle();
        direct.releaseUnclaimed();
    }

    /** A debug line with the time since this JVM started: where a new process spends its first second. */
    static void milestone(String what) {
        if (log.isDebugEnabled()) {
            log.debug("{} ms after JVM start: {}", sinceJvmStart(), what);
        }
    }

    static long sinceJvmStart() {
        return System.currentTimeMillis() - java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();
    }

    /** One {@code 151} line of FRET. */
    private void announcement(String text) throws IOException {
        announcement(FspConversation.parse(text), text);
    }

    /** One announcement ({@code text} as written, for errors). */
    private void announcement(Announcement line, String text) throws IOException {
        try {
            if (line instanceof Announcement.Transfer t) {
                transferId = t.id();
                destination.transfer(t.directory(), recorded != null);
                plannedBlocks = t.blocks();
                totalBlocks = recorded == null ? t.blocks() : recorded.blocksOf(collected);
                totalBytes = t.bytes();
                announcedFiles = t.files();
                checksum = t.checksum();
                digest = t.digest();
            } else if (line instanceof Announcement.Key k) {
                key = k.aes() == null ? null : TransferKey.of(transferId.value(), k.aes());
                keyAnnounced = true;
            } else if (line instanceof Announcement.Token t) {
                token = t.token();
            } else if (line instanceof Announcement.Relay r) {
                relays.add(r, token, key != null);
                conditions.relayAnnounced(r.index());
            } else if (line instanceof Announcement.Refused || line instanceof Announcement.Stopped) {
                if (recorded == null) { // a recording's were reported when the evacuation ran
                    log.warn(relays.said(line));
                }
            } else if (line instanceof Announcement.Directory d) {
                files().createDirectory(d.name());
            } else if (line instanceof Announcement.File f) {
                if (f.index() != manifestFiles.size()) {
                    throw new IllegalArgumentException("FILE index: " + f.index() + " (expected: " + manifestFiles.size()
                            + ", files in index order)");
                }
                manifestFiles.add(f);
                if (isCollected(f.index())) {
                    files().add(f.index(), f.name(), f.size(), f.modifiedMillis());
                }
                if (manifestFiles.size() == announcedFiles && keyAnnounced) {
                    // Every file is known: the destination, journal and threads are made while the server places
                    // the first block, not after it (a tree of thousands of files takes tens of milliseconds).
                    prepare();
                }
            } else if (line instanceof Announcement.Block b && isCollected(b.file())) {
                if (blocks.isEmpty()) {
                    milestone("first block announced");
                }
                block(AnnouncedBlock.of(b));
            }
        } catch (RuntimeException e) {
            throw FspConversation.refused(text, e);
        }
    }

    private boolean isCollected(int file) {
        return collected == null || collected.contains(file);
    }

    /**
     * The names of the files collected whose blocks are not all on disk (some block could not be verified from any
     * source), once {@link #run} returned.
     */
    public List<String> unfinishedFiles() {
        return files().unfinished();
    }

    /**
     * By relay address, the blocks verified here that a relay could not be told to free (it was down): it keeps them
     * until the retention ends or {@code fsp release} frees them; once {@link #run} returned.
     */
    public Map<String, Long> unreleased() {
        return relays.unconfirmed();
    }

    /** Writer, journal, verifier and fetch threads, once the files are known (before the first block). */
    private void prepare() throws IOException {
        if (driver != null) {
            return;
        }
        files().writer();
        journal = ResumeJournal.open(manifest().journalFile(),
                manifest().identity(totalBytes, files().newestModifiedMillis(), new Manifest(manifestFiles).digest()));
        manifest().save(files().isDirectory(), manifestFiles);
        if (journal.state() == ResumeJournal.State.RESUMED) {
            log.info("resuming: {} blocks verified by an earlier run", journal.verified().size());
        }
        files().checkSpace(journal.verified().stream().mapToLong(JournalRecord::length).sum());
        files().prepareTemporaryFiles(files().writtenBy(journal.verified()));
        int threads = Math.min(MAX_FETCH_THREADS, Math.max(1, relays.count()) * options.streams() + 1);
        VerifierConfig config = VerifierConfig.defaults().withMode(options.verify()).withAlgorithm(digest)
                .withQueueDepth(Math.max(16, threads * 2)).withHashThreads(2)
                .withWriterThreads(WRITER_THREADS);
        driver = new BlockDriver(transferId, stats, files(), relays, direct, origin,
                new BlockOpener(checksum, key, transferId, options.directWrites(), limits),
                new FiverVerifier(files().writer(), config, journal, event -> { }), threads, commandStartMillis);
    }

    /** A {@code BLK} line: skip what the journal has, else fetch it from where it was placed. */
    private void block(AnnouncedBlock a) throws IOException {
        prepare();
        RemoteFile f = files().get(a.file());
        List<FileSegment> segments;
        try {
            segments = files().segments(a);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("BLK " + a.seq() + ": file " + a.file() + " @" + a.offset() + "+" + a.length()
                    + " (expected: inside the announced files: " + e.getMessage() + ")");
        }
        if (plannedBlocks >= 0 && a.seq() >= plannedBlocks) {
            throw new IllegalArgumentException("BLK " + a.seq() + ": (expected: < " + plannedBlocks + " blocks)");
        }
        if (blocks.containsKey(a.seq())) {
            return; // announced twice: the first one counts
        }
        for (FileSegment s : segments) {
            tiling.add(a.seq(), s, files().get(s.file()).name());
        }
        boolean reread = options.verify() == VerificationMode.RIVA;
        if (a.source() == BlockSource.JOURNAL) { // announced have: the client said it holds it (FHAV)
            if (!journal.holds(f.local(), a.offset(), a.length())) {
                throw new IllegalArgumentException("BLK " + a.seq() + " have: not in this client's journal (expected: only"
                        + " blocks this client named with FHAV)");
            }
            stats.notSent();
            // its digest is the one the earlier run verified it with (same manifest: the files did not change)
            Digest verifiedWith = new Digest(digest, journal.digest(f.local(), a.offset(), a.length()).orElseThrow());
            start(new BlockLifecycle(a.withDigest(verifiedWith), conditions), b -> b.resumed(reread));
        } else if (journal.isVerified(f.local(), a.offset(), a.length(), a.digest().value())) {
            start(new BlockLifecycle(a, conditions), b -> b.resumed(reread));
        } else {
            start(new BlockLifecycle(a, conditions), BlockLifecycle::announced);
        }
    }

    private void start(BlockLifecycle b, java.util.function.Function<BlockLifecycle, Next> first) {
        blocks.put(b.seq(), b);
        driver.begin();
        Next next = first.apply(b);
        if (next.action() == Action.FETCH_FROM_RELAY && !options.overlap() && stripedNanos == 0) {
            next.failures().forEach(stats::failed);
            deferred.add(b); // fetched once striping has ended
            return;
        }
        driver.act(b, next);
    }

    private void finish() throws IOException, InterruptedException {
        if (driver != null) {
            driver.close();
        }
        relays.close();
        files().close();
        if (journal != null) {
            if (isComplete()) {
                manifest().delete(journal);
            } else {
                journal.close();
            }
        }
    }

    private boolean isComplete() {
        return totalBlocks >= 0 && stats.blocksDone() == totalBlocks && files().notRenamed().isEmpty();
    }

    private CollectSummary summary() {
        String error = null;
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        double stripedSeconds = stripedNanos == 0 ? -1 : (stripedNanos - fretNanos) / 1e9;
        boolean complete = isComplete();
        if (!complete && error == null && !files().notRenamed().isEmpty()) {
            error = "every block arrived, but files kept their temporary names: " + String.join("; ", files().notRenamed());
        }
        if (!complete && error == null && conditions.diskFull() != null) {
            error = "the destination's file system is full (" + conditions.diskFull() + "): free space there";
        }
        if (!complete && error == null) {
            error = (totalBlocks - stats.blocksDone()) + " of " + totalBlocks + " blocks could not be verified from any source";
        }
        return new CollectSummary(transferId == null ? null : transferId.toString(), stats.bytesDone(), seconds, stripedSeconds,
                files().count(), Math.max(0, totalBlocks), complete,
                complete && stats.allVerified() && options.verify() != VerificationMode.OFF,
                options.verify().cliName(), stats.blocksBySource(), stats.bytesBySource(), stats.retries(),
                stats.notSentCount(), driver == null ? -1 : driver.firstVerifiedSeconds(), stats.recoveries(), error);
    }

    private DestinationFiles files() {
        return destination.files();
    }

    private ResumeManifest manifest() {
        return destination.manifest();
    }
}

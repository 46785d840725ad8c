package io.fsp.client.collect;

import io.fsp.block.Block;
import io.fsp.block.BlockDescriptor;
import io.fsp.block.BlockFormatException;
import io.fsp.block.BlockLimits;
import io.fsp.block.Blocks;
import io.fsp.block.stage.BlockPipeline;
import io.fsp.block.stage.Encryptor;
import io.fsp.crypto.NativeCrypto;
import io.fsp.block.stage.OpenedBlock;
import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.checksum.Digest;
import io.fsp.client.control.ControlChannel;
import io.fsp.client.control.ControlException;
import io.fsp.client.control.Reply;
import io.fsp.client.journal.JournalRecord;
import io.fsp.client.journal.ResumeJournal;
import io.fsp.client.journal.TransferIdentity;
import io.fsp.client.verify.BlockRef;
import io.fsp.client.verify.BlockVerdict;
import io.fsp.client.verify.FiverVerifier;
import io.fsp.client.verify.HashAlgorithm;
import io.fsp.client.verify.VerificationMode;
import io.fsp.client.verify.VerifierConfig;
import io.fsp.client.write.PositionalWriter;
import io.fsp.crypto.TransferKey;
import io.fsp.relay.client.RelayConnection;
import io.fsp.relay.client.RelayConnectionConfig;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.PinnedTrustManager;
import io.fsp.tls.SslContexts;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TokenException;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.Channels;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collects one striped transfer (architecture §3, steps 7–11): opens the TLS control channel, logs in,
 * sets the FSP options and sends FRET; while announcements arrive it fetches each block from the relay that
 * holds it (all relays at once, {@code streams} fetches per relay) and, with include-direct, reads blocks
 * straight from the server's data connection. Every block is opened (wire checksum, AES-GCM, zstd) and
 * handed to the {@link FiverVerifier}, which writes it at its offset, hashes the same buffer, flushes, and
 * compares with the digest announced on the control channel. A block that fails anywhere — dead or silent
 * relay, bad checksum, failed authentication, wrong block, digest mismatch — is fetched again from the
 * origin server (FGET) once FRET is answered. Verified blocks are confirmed to their relay and journaled,
 * so an interrupted get resumes without fetching them again.
 */
public final class Collector {
    private static final Logger log = LoggerFactory.getLogger(Collector.class);
    private static final int ORIGIN_ROUNDS = 3;
    private static final int MAX_FGET = 1024;
    /** Where opened block bodies start in memory: a page, enough for O_DIRECT on any common file system. */
    private static final int DIRECT_WRITE_ALIGNMENT = 4096;

    private final CollectOptions options;
    private final BlockLimits limits = BlockLimits.DEFAULT;

    // What the server announced.
    private TransferId transferId;
    private TransferKey key;
    private CapabilityToken token;
    private ChecksumAlgorithm checksum = ChecksumAlgorithm.CRC32C;
    private ChecksumAlgorithm digest = ChecksumAlgorithm.SHA256;
    private boolean directory;
    private long totalBlocks = -1;
    private long totalBytes;
    private final List<String[]> fileLines = new ArrayList<>();
    private final Map<Integer, RemoteFile> files = new TreeMap<>();
    private final Map<Integer, RelaySource> relays = new TreeMap<>();
    // The byte ranges announced blocks take in each file (by file index), and their lengths added up.
    private final Map<Integer, TreeMap<Long, Long>> tiles = new HashMap<>();
    private final Map<Integer, Long> tiledBytes = new HashMap<>();
    private final Map<Long, Announcement> announced = new ConcurrentHashMap<>();

    // Progress of the transfer.
    private final Set<Long> done = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<Announcement> forOrigin = new ConcurrentLinkedQueue<>();
    private final Map<String, LongAdder> blocksBySource = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> bytesBySource = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> retries = new ConcurrentHashMap<>();
    /** When each block was first found damaged, and how long its recovery took by where the good copy came from. */
    private final Map<Long, Long> damagedAt = new ConcurrentHashMap<>();
    private final Map<String, List<Double>> recoveryMillis = new ConcurrentHashMap<>();
    /** Blocks already fetched a second time from the relay that served them damaged. */
    private final Set<Long> refetchedFromRelay = ConcurrentHashMap.newKeySet();
    /** {@code seq/relay} of every fetch from a relay, so that each holder of a block is asked at most once more. */
    private final Set<String> askedRelays = ConcurrentHashMap.newKeySet();
    /** Blocks the server did not send because the journal holds them (FHAV). */
    private final AtomicLong notSent = new AtomicLong();
    private static final int FHAV_RANGES_PER_LINE = 128;
    private final AtomicInteger pending = new AtomicInteger();
    private final AtomicLong bytesDone = new AtomicLong();
    private volatile boolean allVerified = true;

    // Direct blocks waiting for their announcement, or announcements waiting for their block (meetDirect).
    private static final int MAX_EARLY_DIRECT_BLOCKS = 4096;
    private final Map<Long, Object> directMeeting = new ConcurrentHashMap<>();
    private final Set<Long> expectDirect = ConcurrentHashMap.newKeySet();
    private final Set<Long> gotDirect = ConcurrentHashMap.newKeySet();

    private PositionalWriter writer;
    private FiverVerifier verifier;
    private ResumeJournal journal;
    private ExecutorService fetchers;
    private EventLoopGroup relayLoops;
    private ThreadLocal<BlockPipeline> pipelines;
    private long startNanos;
    private volatile long fretNanos;
    private final List<Announcement> deferred = new ArrayList<>();
    private final Map<Integer, Long> bytesInByFile = new ConcurrentHashMap<>(); // blocks in (done), by file
    private final List<String> finishErrors = Collections.synchronizedList(new ArrayList<>()); // files not renamed
    // Relays that let a request wait out the relay timeout: each block still queued for one would wait as long, one
    // after another, so they go to another holder or the origin at once.
    private final Set<Integer> unresponsive = ConcurrentHashMap.newKeySet();
    private volatile String diskFull; // why a write failed for want of space, once one did
    private volatile double firstVerifiedSeconds = -1; // from the JVM's start; the first succeeded() sets it
    // For the debug timeline of a run (milestone): the first block fetched and opened.
    private final java.util.concurrent.atomic.AtomicBoolean firstFetched = new java.util.concurrent.atomic.AtomicBoolean();
    private final java.util.concurrent.atomic.AtomicBoolean firstOpened = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile long stripedNanos;

    /** A file of the transfer: its index, remote name, local name under the writer's root, size. */
    private record RemoteFile(int index, String name, String local, long size, long modifiedMillis) {
    }

    /** A relay the server placed blocks on: the connection (connected and authorised) and its fetch slots. */
    private record RelaySource(int index, InetSocketAddress address, Fingerprint fingerprint,
                               CompletableFuture<RelayConnection> connection, Semaphore slots) {
    }

    public Collector(CollectOptions options) {
        this.options = options;
    }

    /** Bytes verified (or written) so far, for a progress display; safe from any thread. */
    public long bytesDone() {
        return bytesDone.get();
    }

    public long totalBytes() {
        return totalBytes;
    }

    /** Bytes per source so far, for a progress display. */
    public Map<String, Long> bytesBySource() {
        return snapshot(bytesBySource);
    }

    /** Runs the transfer to its end; the summary says whether everything arrived verified. */
    public CollectSummary run() throws IOException, InterruptedException {
        startNanos = System.nanoTime();
        milestone("collector started");
        NativeCrypto.loadInBackground();
        Encryptor.warmUpInBackground();
        String error = null;
        try (ControlChannel control = ControlChannel.connect(options.host(), options.port(), options.trust(),
                options.connectTimeout())) {
            milestone("control connection secured");
            control.login(options.user(), options.password(), false);
            milestone("logged in");
            if (!options.fspOptions().isEmpty() || options.includeDirect()) {
                List<String> pairs = new ArrayList<>(options.fspOptions());
                pairs.add("include-direct=" + (options.includeDirect() ? "on" : "off"));
                pairs.add("streams=" + options.streams());
                ControlChannel.expect(control.command("FSPO " + String.join(" ", pairs)), 200, "FSPO");
            }
            claimHeld(control);
            Socket direct = null;
            if (options.includeDirect()) {
                direct = control.openData(control.epsv(), options.connectTimeout());
            }
            try {
                retrieve(control, direct);
            } finally {
                if (direct != null) {
                    direct.close();
                }
            }
            fromOrigin(control);
        } catch (ControlException e) {
            error = e.getMessage();
            throw e;
        } finally {
            finish();
        }
        return summary(error);
    }

    private void retrieve(ControlChannel control, Socket direct) throws IOException, InterruptedException {
        fretNanos = System.nanoTime();
        control.send("FRET " + options.remotePath());
        Reply r = control.read();
        milestone("FRET answered " + r.code());
        if (r.code() != 150) {
            throw new ControlException("FRET " + options.remotePath() + ": server answered " + r, r.code(), null);
        }
        Thread directReader = null;
        if (direct != null) {
            Socket s = direct;
            directReader = new Thread(() -> readDirect(s), "fsp-direct");
            directReader.setDaemon(true);
            directReader.start();
        }
        // Striping pauses while every relay is full (the server gives a target up after 30 s): allow for that.
        control.readTimeout(Duration.ofMinutes(5));
        while (true) {
            r = control.read();
            if (r.code() == 151) {
                announcement(r.text());
            } else if (r.code() == 226) {
                stripedNanos = System.nanoTime(); // the server has placed every block
                milestone("226: every block placed");
                checkTiling();
                deferred.forEach(this::fetchFromRelay);
                deferred.clear();
                break;
            } else {
                throw new ControlException("FRET " + options.remotePath() + ": " + r, r.code(), null);
            }
        }
        control.readTimeout(options.connectTimeout());
        prepare();
        if (directReader != null) {
            directReader.join(options.relayTimeout().toMillis() + 5000);
        }
        // A direct block announced but never seen (the connection broke) comes from the origin.
        for (long seq : expectDirect) {
            if (!gotDirect.contains(seq) && !done.contains(seq)) {
                retry(announced.get(seq), "direct", "direct connection ended before the block arrived");
            }
        }
        awaitIdle();
        directMeeting.values().forEach(v -> {
            if (v instanceof ByteBuf b) {
                b.release(); // arrived, but its announcement never asked for it (held in the journal)
            }
        });
        directMeeting.clear();
    }

    /** Counts a block of its file as in; the last one gives the file its name (it was written under a temporary one). */
    private void fileDone(Announcement a) {
        RemoteFile f = files.get(a.file());
        if (f != null && bytesInByFile.merge(a.file(), (long) a.length(), Long::sum) == f.size()) {
            try {
                writer.complete(f.local());
            } catch (IOException e) {
                finishErrors.add(f.name() + ": " + e.getMessage());
            }
        }
    }

    /** A debug line with the time since this JVM started: where a new process spends its first second. */
    private static void milestone(String what) {
        if (log.isDebugEnabled()) {
            log.debug("{} ms after JVM start: {}", sinceJvmStart(), what);
        }
    }

    private static long sinceJvmStart() {
        return System.currentTimeMillis() - java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();
    }

    /** One {@code 151} line of FRET. */
    private void announcement(String text) throws IOException {
        String[] w = text.trim().split(" ");
        try {
            switch (w[0]) {
                case "FSP" -> {
                    transferId = TransferId.parse(w[1]);
                    for (int i = 2; i < w.length; i++) {
                        int eq = w[i].indexOf('=');
                        if (eq > 0) {
                            String k = w[i].substring(0, eq);
                            String v = w[i].substring(eq + 1);
                            switch (k) {
                                case "kind" -> directory = v.equals("directory");
                                case "blocks" -> totalBlocks = Long.parseLong(v);
                                case "bytes" -> totalBytes = Long.parseLong(v);
                                case "checksum" -> checksum = ChecksumAlgorithm.fromLabel(v);
                                case "digest" -> digest = ChecksumAlgorithm.fromLabel(v);
                                default -> { }
                            }
                        }
                    }
                }
                case "KEY" -> key = w[1].equals("none") ? null : TransferKey.of(transferId.value(), Base64.getDecoder().decode(w[1]));
                case "TOKEN" -> token = CapabilityToken.parse(w[1]);
                case "RELAY" -> relay(Integer.parseInt(w[1]), w[2], Fingerprint.parse(w[3]));
                case "DIR" -> {
                    prepareWriter();
                    writer.createDirectory(local(decodeName(w[1])));
                }
                case "FILE" -> {
                    fileLines.add(w);
                    int index = Integer.parseInt(w[1]);
                    long size = Long.parseLong(w[2]);
                    String name = decodeName(w[4]);
                    files.put(index, new RemoteFile(index, name, local(name), size, Long.parseLong(w[3])));
                }
                case "BLK" -> {
                    if (announced.isEmpty()) {
                        milestone("first block announced");
                    }
                    block(Announcement.parse(w));
                }
                default -> log.debug("ignoring announcement {}", text);
            }
        } catch (TokenException | RuntimeException e) {
            throw new ControlException("announcement '" + text.substring(0, Math.min(200, text.length())) + "': " + e.getMessage(),
                    151, e);
        }
    }

    private void relay(int index, String hostPort, Fingerprint fp) {
        int colon = hostPort.lastIndexOf(':');
        String host = hostPort.substring(0, colon).replace("[", "").replace("]", "");
        InetSocketAddress address = new InetSocketAddress(host, Integer.parseInt(hostPort.substring(colon + 1)));
        if (relayLoops == null) {
            relayLoops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        }
        RelayConnectionConfig config = RelayConnectionConfig.DEFAULT.withRequestTimeout(options.relayTimeout());
        config = new RelayConnectionConfig(options.connectTimeout(), config.requestTimeout(), config.putTimeout(),
                config.pushWindowBytes(), config.limits());
        CompletableFuture<RelayConnection> connection;
        try {
            connection = RelayConnection.connect(address, SslContexts.client(PinnedTrustManager.of(Set.of(fp)), Optional.empty()),
                            relayLoops, config)
                    .thenCompose(c -> c.authorize(token).thenApply(ok -> c));
            connection.thenRun(() -> milestone("relay " + index + " connected and authorized"));
        } catch (javax.net.ssl.SSLException e) {
            connection = CompletableFuture.failedFuture(e);
        }
        relays.put(index, new RelaySource(index, address, fp, connection, new Semaphore(options.streams())));
    }

    /** Writer, journal, verifier and fetch threads, once the files are known (before the first block). */
    private void prepare() throws IOException {
        if (verifier != null) {
            return;
        }
        prepareWriter();
        long newest = files.values().stream().mapToLong(RemoteFile::modifiedMillis).max().orElse(0);
        TransferIdentity identity = new TransferIdentity(options.server(), options.remotePath(), totalBytes, newest,
                manifestDigest(), options.verify().name().toLowerCase(java.util.Locale.ROOT));
        journal = ResumeJournal.open(journalFile(), identity);
        saveManifest();
        if (journal.state() == ResumeJournal.State.RESUMED) {
            log.info("resuming: {} blocks verified by an earlier run", journal.verified().size());
        }
        checkSpace();
        // Files are written under a temporary name until every block of theirs is in (fileDone); an earlier run's
        // temporary file is continued, and a file an earlier run wrote blocks of in place stays there.
        Set<String> journaled = new java.util.HashSet<>();
        journal.verified().forEach(r -> journaled.add(r.path()));
        for (RemoteFile f : files.values()) {
            writer.prepareTemporaryFile(f.local(), f.size(), journaled.contains(f.local()));
        }
        VerifierConfig config = VerifierConfig.defaults().withMode(options.verify()).withAlgorithm(HashAlgorithm.of(digest))
                .withQueueDepth(Math.max(16, relays.size() * options.streams() * 2)).withHashThreads(2);
        verifier = new FiverVerifier(writer, config, journal, event -> { });
        int threads = Math.max(1, relays.size()) * options.streams() + 1;
        fetchers = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "fsp-fetch");
            t.setDaemon(true);
            return t;
        });
        pipelines = ThreadLocal.withInitial(this::receiverPipeline);
    }

    /**
     * Refuses to start when the destination's file system cannot take what is still to be written (the files are
     * made sparse, so nothing is reserved yet): a full disk is reported as such before the first byte, not as
     * blocks that "could not be verified" after rounds of fetching them again.
     */
    private void checkSpace() throws IOException {
        long held = journal.verified().stream().mapToLong(r -> r.length()).sum();
        long needed = files.values().stream().mapToLong(RemoteFile::size).sum() - held;
        java.nio.file.FileStore store = Files.getFileStore(writer.root());
        long usable = store.getUsableSpace();
        if (needed > usable) {
            throw new NotEnoughSpaceException(String.format(java.util.Locale.ROOT,
                    "not enough space for %s: %,d bytes still to write, %,d available on %s", options.destination(), needed,
                    usable, store));
        }
    }

    /** A write failed because the file system is full: nothing fetched from anywhere can be written any more. */
    private static boolean noSpace(String cause) {
        return cause != null && (cause.contains("No space left on device") || cause.contains("Disk quota exceeded"));
    }

    private void prepareWriter() throws IOException {
        if (writer == null) {
            writer = new PositionalWriter(directory ? options.destination() : parentOf(options.destination()),
                    options.directWrites());
        }
    }

    private static Path parentOf(Path p) {
        Path abs = p.toAbsolutePath();
        return abs.getParent() == null ? abs : abs.getParent();
    }

    /** A single file goes to the destination's name; a directory's entries under the destination. */
    private String local(String remoteName) {
        return directory ? remoteName : options.destination().toAbsolutePath().getFileName().toString();
    }

    private Path journalFile() {
        Path dest = options.destination().toAbsolutePath();
        return parentOf(dest).resolve("." + dest.getFileName() + ".fsp-journal");
    }

    /** Beside the journal: the kind and FILE lines of the transfer, so that a rerun can tell the server what it holds. */
    private Path manifestFile() {
        Path dest = options.destination().toAbsolutePath();
        return parentOf(dest).resolve("." + dest.getFileName() + ".fsp-manifest");
    }

    private void saveManifest() throws IOException {
        StringBuilder sb = new StringBuilder(directory ? "KIND directory\n" : "KIND file\n");
        for (String[] w : fileLines) {
            sb.append(String.join(" ", w)).append('\n');
        }
        Path target = manifestFile();
        Path part = target.resolveSibling(target.getFileName() + ".part");
        try (FileChannel ch = FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap(sb.toString().getBytes(StandardCharsets.UTF_8));
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        Files.move(part, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * On a rerun, tells the server which blocks the journal holds verified (FHAV), so that it neither reads nor
     * sends them again; the server honours this only if the files did not change since (same manifest). Without
     * a journal and manifest of this transfer it says nothing. A server that does not know FHAV is not asked again.
     */
    private void claimHeld(ControlChannel control) throws IOException, InterruptedException {
        Path manifest = manifestFile();
        if (!Files.exists(manifest) || !Files.exists(journalFile())) {
            return;
        }
        List<String> lines = Files.readAllLines(manifest, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !lines.get(0).startsWith("KIND ")) {
            return;
        }
        boolean dir = lines.get(0).equals("KIND directory");
        Map<String, Integer> indexByLocal = new java.util.HashMap<>();
        long total = 0;
        long newest = 0;
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        for (String line : lines.subList(1, lines.size())) {
            String[] w = line.split(" ");
            if (w.length != 5 || !w[0].equals("FILE")) {
                return; // not a manifest this client wrote
            }
            String name = decodeName(w[4]);
            indexByLocal.put(dir ? name : options.destination().toAbsolutePath().getFileName().toString(),
                    Integer.parseInt(w[1]));
            total += Long.parseLong(w[2]);
            newest = Math.max(newest, Long.parseLong(w[3]));
            md.update(line.getBytes(StandardCharsets.UTF_8));
            md.update((byte) '\n');
        }
        String digestHex = HexFormat.of().formatHex(md.digest());
        TransferIdentity identity = new TransferIdentity(options.server(), options.remotePath(), total, newest, digestHex,
                options.verify().name().toLowerCase(java.util.Locale.ROOT));
        Map<Integer, TreeMap<Long, Long>> held = new TreeMap<>();
        for (JournalRecord r : ResumeJournal.peek(journalFile(), identity)) {
            Integer index = indexByLocal.get(r.path());
            if (index != null && r.length() > 0) {
                held.computeIfAbsent(index, i -> new TreeMap<>()).put(r.offset(), r.offset() + r.length());
            }
        }
        for (Map.Entry<Integer, TreeMap<Long, Long>> file : held.entrySet()) {
            List<String> ranges = new ArrayList<>();
            long start = -1;
            long end = -1;
            for (Map.Entry<Long, Long> r : file.getValue().entrySet()) {
                if (r.getKey() <= end) {
                    end = Math.max(end, r.getValue());
                    continue;
                }
                if (start >= 0) {
                    ranges.add(start + "-" + end);
                }
                start = r.getKey();
                end = r.getValue();
            }
            ranges.add(start + "-" + end);
            for (int i = 0; i < ranges.size(); i += FHAV_RANGES_PER_LINE) {
                List<String> part = ranges.subList(i, Math.min(ranges.size(), i + FHAV_RANGES_PER_LINE));
                Reply r = control.command("FHAV " + digestHex + " " + file.getKey() + " " + String.join(",", part));
                if (r.code() != 200) {
                    log.info("server did not take FHAV ({}): every block is sent again", r);
                    return;
                }
            }
        }
    }

    private String manifestDigest() {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (String[] w : fileLines) {
                md.update(String.join(" ", w).getBytes(StandardCharsets.UTF_8));
                md.update((byte) '\n');
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private BlockPipeline receiverPipeline() {
        BlockPipeline.Builder b = BlockPipeline.builder().checksum(checksum).digest(null).limits(limits);
        if (options.directWrites()) {
            b.bodyAlignment(DIRECT_WRITE_ALIGNMENT);
        }
        if (key != null) {
            b.encryption(key);
        } else {
            b.transferId(transferId.value());
        }
        return b.build();
    }

    /**
     * Records where block {@code a} lies in its file; a block that overlaps one announced before is refused. With
     * every block inside its file (checked before) and none overlapping, the blocks tile a file exactly when their
     * lengths add up to its size ({@link #checkTiling}).
     */
    private void tile(Announcement a, RemoteFile f) {
        TreeMap<Long, Long> ranges = tiles.computeIfAbsent(a.file(), k -> new TreeMap<>());
        long end = a.offset() + a.length();
        Map.Entry<Long, Long> before = ranges.floorEntry(a.offset());
        Map.Entry<Long, Long> after = ranges.ceilingEntry(a.offset());
        if (before != null && before.getValue() > a.offset() || after != null && after.getKey() < end) {
            throw new IllegalArgumentException("BLK " + a.seq() + ": bytes " + a.offset() + ".." + end + " of " + f.name()
                    + " overlap another block (expected: every byte in exactly one block)");
        }
        ranges.put(a.offset(), end);
        tiledBytes.merge(a.file(), (long) a.length(), Long::sum);
    }

    /** Once every block is announced: each file's blocks cover it whole, else the transfer cannot be complete. */
    private void checkTiling() throws ControlException {
        for (RemoteFile f : files.values()) {
            long covered = tiledBytes.getOrDefault(f.index(), 0L);
            if (covered != f.size()) {
                throw new ControlException("FRET " + options.remotePath() + ": the server announced blocks for " + covered
                        + " of the " + f.size() + " bytes of " + f.name() + " (expected: every byte of every file)", 226, null);
            }
        }
    }

    /** A {@code BLK} line: skip what the journal has, else fetch it from where it was placed. */
    private void block(Announcement a) throws IOException {
        prepare();
        RemoteFile f = files.get(a.file());
        if (f == null || a.offset() + a.length() > f.size()) {
            throw new IllegalArgumentException("BLK " + a.seq() + ": file " + a.file() + " @" + a.offset() + "+" + a.length()
                    + " (expected: inside an announced file)");
        }
        if (totalBlocks >= 0 && a.seq() >= totalBlocks) {
            throw new IllegalArgumentException("BLK " + a.seq() + ": (expected: < " + totalBlocks + " blocks)");
        }
        if (announced.containsKey(a.seq())) {
            return; // announced twice: the first one counts
        }
        tile(a, f);
        announced.put(a.seq(), a);
        if (a.source().equals("have")) {
            if (!journal.holds(f.local(), a.offset(), a.length())) {
                throw new IllegalArgumentException("BLK " + a.seq() + " have: not in this client's journal (expected: only"
                        + " blocks this client named with FHAV)");
            }
            notSent.incrementAndGet();
            // its digest is the one the earlier run verified it with (same manifest: the files did not change)
            resumed(a.withDigest(new Digest(digest, journal.digest(f.local(), a.offset(), a.length()).orElseThrow())));
            return;
        }
        if (journal.isVerified(f.local(), a.offset(), a.length(), a.digest().value())) {
            resumed(a);
            return;
        }
        pending.incrementAndGet();
        switch (a.source()) {
            case "origin" -> retry(a, "server", "no relay could take the block");
            case "direct" -> {
                expectDirect.add(a.seq());
                meetDirect(a.seq(), a);
            }
            default -> {
                if (options.overlap() || stripedNanos != 0) {
                    fetchFromRelay(a);
                } else {
                    deferred.add(a); // fetched once striping has ended
                }
            }
        }
    }

    private void fetchFromRelay(Announcement a) {
        if (diskFull != null) {
            idle();
            return;
        }
        askedRelays.add(a.seq() + "/" + a.relay());
        RelaySource relay = relays.get(a.relay());
        if (relay == null) {
            retry(a, a.source(), "relay not announced");
            return;
        }
        fetchers.execute(() -> {
            try {
                relay.slots().acquire();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                retry(a, a.source(), "interrupted");
                return;
            }
            try {
                if (unresponsive.contains(a.relay())) {
                    retry(a, a.source(), "relay gave no answer within " + options.relayTimeout().toMillis() + " ms before; not asked again");
                    return;
                }
                RelayConnection c = relay.connection().get(options.connectTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
                ByteBuf wire = c.getBlock(transferId, a.seq()).get(options.relayTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
                if (firstFetched.compareAndSet(false, true)) {
                    milestone("first block fetched");
                }
                open(a, wire, a.source());
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof io.fsp.relay.client.RelayTimeoutException) {
                    unresponsive.add(a.relay());
                }
                retry(a, a.source(), describe(e.getCause()));
            } catch (java.util.concurrent.TimeoutException e) {
                unresponsive.add(a.relay());
                retry(a, a.source(), "no answer within " + options.relayTimeout().toMillis() + " ms");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                retry(a, a.source(), "interrupted");
            } finally {
                relay.slots().release();
            }
        });
    }

    /** Checks and opens a block's wire bytes (released here) and hands the plaintext to the verifier. */
    private void open(Announcement a, ByteBuf wire, String source) {
        OpenedBlock opened;
        try {
            Block block = Blocks.parse(wire, limits);
            try {
                if (block.header().sequence() != a.seq()) {
                    throw new BlockFormatException("sequence " + block.header().sequence() + " (expected: " + a.seq() + ")");
                }
                opened = pipelines.get().open(block, files.get(a.file()).name());
            } finally {
                block.release();
            }
        } catch (RuntimeException e) {
            recover(a, source, describe(e));
            return;
        } finally {
            wire.release();
        }
        RemoteFile f = files.get(a.file());
        BlockDescriptor d = opened.descriptor();
        if (!d.name().equals(f.name()) || d.fileOffset() != a.offset() || d.dataLength() != a.length()) {
            opened.release();
            recover(a, source, "block describes " + d.name() + " @" + d.fileOffset() + "+" + d.dataLength()
                    + " (expected: the announced place)");
            return;
        }
        try {
            if (firstOpened.compareAndSet(false, true)) {
                milestone("first block opened");
            }
            verifier.submit(new BlockRef(f.local(), a.offset(), a.length()), opened.content(), a.digest())
                    .whenComplete((verdict, error) -> verdict(a, source, verdict, error));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            retry(a, source, "interrupted");
        } catch (RuntimeException e) {
            retry(a, source, describe(e));
        }
    }

    private void verdict(Announcement a, String source, BlockVerdict v, Throwable error) {
        if (error != null) {
            retry(a, source, describe(error));
            return;
        }
        switch (v.outcome()) {
            case VERIFIED -> {
                succeeded(a, source);
                confirm(a);
            }
            case WRITTEN -> {
                allVerified = false;
                succeeded(a, source);
                confirm(a);
            }
            default -> {
                if (v.outcome() == BlockVerdict.Outcome.MISMATCH) {
                    recover(a, source, "digest mismatch");
                } else {
                    retry(a, source, v.cause());
                }
                return;
            }
        }
        idle();
    }

    private void succeeded(Announcement a, String source) {
        if (done.add(a.seq())) {
            fileDone(a);
            if (firstVerifiedSeconds < 0) {
                firstVerifiedSeconds = sinceJvmStart() / 1e3;
                milestone("first block done, from " + source);
            }
            bytesDone.addAndGet(a.length());
            blocksBySource.computeIfAbsent(source, k -> new LongAdder()).increment();
            bytesBySource.computeIfAbsent(source, k -> new LongAdder()).add(a.length());
            Long damaged = damagedAt.get(a.seq());
            if (damaged != null) {
                recoveryMillis.computeIfAbsent(source.startsWith("relay:") ? "relay" : source,
                        k -> Collections.synchronizedList(new ArrayList<>())).add((System.nanoTime() - damaged) / 1e6);
            }
        }
    }

    /** Tells the relay that held the block that it may free it (best effort: it expires anyway). */
    private void confirm(Announcement a) {
        for (int r : a.holders().isEmpty() ? List.of(a.relay()) : a.holders()) {
            RelaySource relay = relays.get(r);
            if (relay != null && relay.connection().isDone() && !relay.connection().isCompletedExceptionally()) {
                relay.connection().join().confirm(transferId, List.of(a.seq())).exceptionally(e -> 0L);
            }
        }
    }

    /**
     * The block arrived damaged from {@code source}. A relay frees a block only when it is confirmed, so the
     * relay that served it still holds it: fetch it from there once more (the damage may have happened on
     * the way) before going back to the origin, as in-network cache recovery does (poster 003).
     */
    private void recover(Announcement a, String source, String cause) {
        damagedAt.putIfAbsent(a.seq(), System.nanoTime());
        if (options.relayRecovery() && source.equals(a.source()) && relays.containsKey(a.relay())
                && refetchedFromRelay.add(a.seq())) {
            retries.computeIfAbsent(source + ": " + cause, k -> new LongAdder()).increment();
            log.debug("block {} from {} damaged ({}); fetching it from there again", a.seq(), source, cause);
            fetchFromRelay(a); // still pending: this fetch ends in a verdict or a retry
            return;
        }
        retry(a, source, cause);
    }

    /**
     * The block failed at {@code source}: count the cause, then fetch it from another relay that holds a
     * replica and was not asked yet, else leave it for the origin.
     */
    private void retry(Announcement a, String source, String cause) {
        retries.computeIfAbsent(source + ": " + cause, k -> new LongAdder()).increment();
        if (noSpace(cause)) {
            diskFull = cause; // no source can help: stop asking them
            idle();
            return;
        }
        if (options.relayRecovery() && source.equals(a.source()) && a.relay() >= 0) {
            for (int r : a.holders()) {
                if (relays.containsKey(r) && !askedRelays.contains(a.seq() + "/" + r)) {
                    log.debug("block {} from {} failed: {}; fetching the replica on relay:{}", a.seq(), source, cause, r);
                    fetchFromRelay(a.at(r)); // still pending
                    return;
                }
            }
        }
        log.debug("block {} from {} failed: {}", a.seq(), source, cause);
        forOrigin.add(a);
        idle();
    }

    private void idle() {
        if (pending.decrementAndGet() <= 0) {
            synchronized (pending) {
                pending.notifyAll();
            }
        }
    }

    private void awaitIdle() throws InterruptedException {
        synchronized (pending) {
            while (pending.get() > 0) {
                pending.wait(200);
            }
        }
    }

    /**
     * A block an earlier run of this transfer verified (its journal holds it). In RIVA mode it counts only once it
     * has been read back from the disk and hashed again; a block that no longer matches is fetched from the origin.
     */
    private void resumed(Announcement a) {
        if (options.verify() != VerificationMode.RIVA) {
            succeeded(a, "journal");
            confirm(a);
            return;
        }
        pending.incrementAndGet();
        fetchers.execute(() -> {
            String cause;
            try {
                if (verifier.matchesOnDisk(new BlockRef(files.get(a.file()).local(), a.offset(), a.length()), a.digest().value())) {
                    succeeded(a, "journal");
                    confirm(a);
                    idle();
                    return;
                }
                cause = "resumed block no longer matches its digest on disk";
            } catch (IOException | RuntimeException e) {
                cause = "re-reading a resumed block failed: " + describe(e);
            }
            retry(a, "journal", cause);
        });
    }

    /**
     * Where a direct block and its announcement meet, whichever comes first: the block's wire bytes from the data
     * connection, or the announcement once {@link #block} has counted it as pending. The second to arrive opens
     * the block, exactly once. (Opening as soon as the announcement was merely seen let a block be verified
     * before it was counted, and a run could end one block early.)
     */
    private void meetDirect(long seq, Object half) {
        Object other = directMeeting.putIfAbsent(seq, half);
        if (other == null) {
            return; // the other half opens it
        }
        if (other.getClass() == half.getClass() || !directMeeting.remove(seq, other)) {
            if (half instanceof ByteBuf b) {
                b.release(); // the same block twice
            }
            return;
        }
        Announcement a = (Announcement) (half instanceof Announcement ? half : other);
        ByteBuf wire = (ByteBuf) (half instanceof ByteBuf ? half : other);
        fetchers.execute(() -> open(a, wire, "direct"));
    }

    /** Reads blocks from the direct data connection until the server closes it. */
    private void readDirect(Socket socket) {
        try {
            BlockStreamReader reader = new BlockStreamReader(socket.getChannel(), limits);
            for (ByteBuf wire; (wire = reader.next()) != null; ) {
                long seq = wire.getUnsignedInt(18);
                if (directMeeting.size() < MAX_EARLY_DIRECT_BLOCKS || directMeeting.containsKey(seq)) {
                    gotDirect.add(seq);
                    meetDirect(seq, wire);
                } else {
                    wire.release(); // far ahead of the announcements: the block comes from the origin instead
                }
            }
        } catch (IOException | RuntimeException e) {
            log.info("direct data connection ended: {}", e.toString());
        }
    }

    /** Fetches every failed block from the server itself, in rounds, until all are verified or rounds run out. */
    private void fromOrigin(ControlChannel control) throws IOException, InterruptedException {
        for (int round = 0; round < ORIGIN_ROUNDS && !forOrigin.isEmpty() && diskFull == null; round++) {
            List<Announcement> wanted = new ArrayList<>();
            Set<Long> seen = new java.util.HashSet<>();
            for (Announcement a; (a = forOrigin.poll()) != null; ) {
                if (!done.contains(a.seq()) && seen.add(a.seq())) {
                    wanted.add(a);
                }
            }
            for (int i = 0; i < wanted.size(); i += MAX_FGET) {
                List<Announcement> part = wanted.subList(i, Math.min(wanted.size(), i + MAX_FGET));
                fget(control, part);
            }
            awaitIdle();
        }
    }

    private void fget(ControlChannel control, List<Announcement> part) throws IOException, InterruptedException {
        int port = control.epsv();
        try (Socket data = control.openData(port, options.connectTimeout())) {
            StringBuilder seqs = new StringBuilder();
            for (Announcement a : part) {
                seqs.append(seqs.length() == 0 ? "" : ",").append(a.seq());
            }
            Reply r = control.command("FGET " + transferId + " " + seqs);
            if (r.code() != 150) {
                throw new ControlException("FGET: server answered " + r, r.code(), null);
            }
            // through the stream, whose reads keep the socket's timeout
            BlockStreamReader reader = new BlockStreamReader(Channels.newChannel(data.getInputStream()), limits);
            data.setSoTimeout((int) options.relayTimeout().multipliedBy(3).toMillis());
            Map<Long, Announcement> bySeq = new TreeMap<>();
            part.forEach(a -> bySeq.put(a.seq(), a));
            for (int n = 0; n < part.size(); n++) {
                ByteBuf wire = reader.next();
                if (wire == null) {
                    break;
                }
                Announcement a = bySeq.remove(wire.getUnsignedInt(18));
                if (a == null) {
                    wire.release();
                    continue;
                }
                pending.incrementAndGet();
                open(a, wire, "origin");
            }
            for (Announcement missing : bySeq.values()) {
                pending.incrementAndGet();
                retry(missing, "origin", "not received");
            }
        }
        ControlChannel.expect(control.read(), 226, "FGET");
    }

    private void finish() throws IOException, InterruptedException {
        if (verifier != null) {
            verifier.close();
        }
        if (fetchers != null) {
            fetchers.shutdownNow();
        }
        for (RelaySource r : relays.values()) {
            r.connection().thenAccept(RelayConnection::close);
        }
        if (relayLoops != null) {
            relayLoops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
        if (writer != null) {
            writer.close();
        }
        if (journal != null) {
            if (isComplete()) {
                journal.delete();
                Files.deleteIfExists(manifestFile());
            } else {
                journal.close();
            }
        }
    }

    private boolean isComplete() {
        return totalBlocks >= 0 && done.size() == totalBlocks && finishErrors.isEmpty();
    }

    private CollectSummary summary(String error) {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        double stripedSeconds = stripedNanos == 0 ? -1 : (stripedNanos - fretNanos) / 1e9;
        boolean complete = isComplete();
        if (!complete && error == null && !finishErrors.isEmpty()) {
            error = "every block arrived, but files kept their temporary names: " + String.join("; ", finishErrors);
        }
        if (!complete && error == null && diskFull != null) {
            error = "the destination's file system is full (" + diskFull + "): free space there";
        }
        if (!complete && error == null) {
            error = (totalBlocks - done.size()) + " of " + totalBlocks + " blocks could not be verified from any source";
        }
        return new CollectSummary(transferId == null ? null : transferId.toString(), bytesDone.get(), seconds, stripedSeconds,
                files.size(),
                Math.max(0, totalBlocks), complete, complete && allVerified && options.verify() != VerificationMode.OFF,
                options.verify().cliName(), snapshot(blocksBySource), snapshot(bytesBySource), snapshot(retries),
                notSent.get(), firstVerifiedSeconds, recoveries(), error);
    }

    private Map<String, CollectSummary.Recovery> recoveries() {
        Map<String, CollectSummary.Recovery> out = new TreeMap<>();
        recoveryMillis.forEach((source, list) -> {
            double[] ms;
            synchronized (list) {
                ms = list.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            }
            out.put(source, new CollectSummary.Recovery(ms.length, ms[ms.length / 2], ms[ms.length - 1]));
        });
        return out;
    }

    private static Map<String, Long> snapshot(Map<String, LongAdder> m) {
        Map<String, Long> out = new TreeMap<>();
        m.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    private static String decodeName(String encoded) {
        return URLDecoder.decode(encoded, StandardCharsets.UTF_8);
    }

    private static String describe(Throwable e) {
        if (e instanceof java.util.concurrent.CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        String name = e.getClass().getSimpleName().replace("Exception", "");
        String msg = e.getMessage() == null ? "" : e.getMessage();
        // Keep causes countable: drop block ids and numbers that differ per block.
        msg = msg.replaceAll("[0-9a-f]{16}/\\d+", "block").replaceAll("\\b\\d{2,}\\b", "N");
        return name + (msg.isEmpty() ? "" : ": " + (msg.length() > 120 ? msg.substring(0, 120) : msg));
    }

    /** Files a transfer leaves while incomplete: the journal, so a rerun resumes. */
    public Path journalPath() {
        return journalFile();
    }
}

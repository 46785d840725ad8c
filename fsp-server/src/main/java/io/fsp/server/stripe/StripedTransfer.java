package io.fsp.server.stripe;

import io.fsp.block.BlockDescriptor;
import io.fsp.block.BlockHeader;
import io.fsp.block.stage.BlockPipeline;
import io.fsp.block.stage.SealedBlock;
import io.fsp.checksum.Digest;
import io.fsp.crypto.NonceSequence;
import io.fsp.crypto.TransferKey;
import io.fsp.extension.FileSegment;
import io.fsp.extension.TransferOptions;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.nio.channels.FileChannel;
import io.fsp.server.fs.DirectoryHandle;
import io.fsp.server.fs.UploadNames;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.NotRegularFileException;
import io.fsp.server.fs.UserRoot;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One striped transfer: what is sent (files, directories, the {@link BlockPlan}) and how (options, AES key),
 * which blocks the client already holds, and how each block was first sealed. The plan is fixed before the
 * first block is read, so an origin re-fetch can seal exactly the same block again (same key, same sequence
 * number, same bytes). Nothing here is kept per block but a bit (held) and, once sealed, its digest.
 */
public final class StripedTransfer {
    /**
     * A file of the transfer, named relative to the retrieved path ({@code /}-separated); {@code real} and
     * {@code fileKey} (its device and inode) say where it was found, to open it again and only it.
     */
    public record SourceFile(String name, Path base, Object fileKey, long size, long modifiedMillis) {
        /** The file's path: {@code base}, shared by every file of a transfer, resolved against its name when needed. */
        public Path real() {
            return base.resolve(name);
        }
    }

    private final TransferId id;
    private final UserRoot root;
    private final TransferOptions options;
    private final TransferKey key;
    private final List<String> directories;
    private final List<SourceFile> files;
    private final BlockPlan plan;
    private final long totalBytes;
    private final boolean directory;
    private final FirstSealings firstSealings = new FirstSealings();
    /** Blocks a resuming client holds (FHAV): announced as {@code have}, not sent. Set before striping starts. */
    private final BitSet held = new BitSet();
    private final PlanBudget.Charge charge;

    private StripedTransfer(TransferId id, UserRoot root, TransferOptions options, TransferKey key, boolean directory,
                            List<String> directories, List<SourceFile> files, long maxBlocks, PlanBudget.Charge charge)
            throws TransferTooLargeException {
        this.id = id;
        this.charge = charge;
        this.root = root;
        this.directory = directory;
        this.key = key;
        this.directories = List.copyOf(directories);
        this.files = List.copyOf(files);
        List<Long> sizes = new ArrayList<>(files.size());
        long total = 0;
        for (SourceFile f : files) {
            sizes.add(f.size());
            total += f.size();
        }
        this.options = options.automaticBlockSize() ? options.withBlockSize(BlockPlan.automaticBlockSize(total)) : options;
        // held is a BitSet, indexed by int; the nonce's sequence number has 32 bits
        this.plan = new BlockPlan(sizes, this.options.blockSize(),
                Math.min(maxBlocks, Math.min(Integer.MAX_VALUE, NonceSequence.MAX_SEQUENCE + 1)));
        this.totalBytes = total;
    }

    /**
     * As {@link #plan(UserRoot, FtpPath, TransferOptions, long, SecureRandom, List, PlanBudget.Charge)} without
     * priorities, and with a budget of its own.
     */
    public static StripedTransfer plan(UserRoot root, FtpPath path, TransferOptions options, long maxBlocks, SecureRandom random)
            throws IOException {
        return plan(root, path, options, maxBlocks, random, List.of(), new PlanBudget(Long.MAX_VALUE).charge(""));
    }

    /**
     * Plans the transfer of what {@code path} names under {@code root}: a regular file, or a directory walked
     * in name order through directory handles, links and special files left out. A single file is named by
     * its own name; a directory's entries relative to it. The files named by {@code priorities} come first
     * ({@link #prioritized}). Blocks are read later through {@link #open}.
     *
     * @param priorities names of files or directories (FPRI), relative to {@code path}, to send first in this order
     * @param charge takes a share of the server's budget for each file and directory found; the transfer keeps it
     * @throws TransferTooLargeException if the files make more than {@code maxBlocks} blocks of the options' size,
     *         or a directory holds more than {@code maxBlocks} files and directories
     * @throws PlanBudgetExceededException if the server's running transfers leave too little of its budget
     */
    public static StripedTransfer plan(UserRoot root, FtpPath path, TransferOptions options, long maxBlocks, SecureRandom random,
                                       List<String> priorities, PlanBudget.Charge charge) throws IOException {
        TransferId id = new TransferId(random.nextLong());
        TransferKey key = options.cipherBits() == 0 ? null : TransferKey.generate(id.value(), options.cipherBits(), random);
        List<String> dirs = new ArrayList<>();
        List<SourceFile> files = new ArrayList<>();
        boolean directory;
        try (UserRoot.Entry target = root.target(path)) {
            BasicFileAttributes a = target.dir().existing(target.name());
            directory = a.isDirectory();
            if (a.isRegularFile()) {
                charge.add(1);
                files.add(new SourceFile(target.name(), target.dir().path(), a.fileKey(), a.size(),
                        a.lastModifiedTime().toMillis()));
            } else if (directory) {
                try (DirectoryHandle top = target.dir().directory(target.name())) {
                    List<Found> found = new ArrayList<>();
                    walk(top, "", found, maxBlocks, charge);
                    for (Found f : inPathOrder(found)) {
                        if (f.fileKey() == null) {
                            dirs.add(f.name());
                        } else {
                            files.add(new SourceFile(f.name(), top.path(), f.fileKey(), f.size(), f.modifiedMillis()));
                        }
                    }
                }
            } else {
                throw new NotRegularFileException(path.toString(), "a FIFO, socket or device");
            }
        }
        return new StripedTransfer(id, root, options, key, directory, dirs, prioritized(files, priorities), maxBlocks,
                charge);
    }

    /**
     * A file or directory the walk found, with what the plan keeps of its attributes (a file system's attributes
     * object is several times larger, and a tree of a million files holds one of each until it is sorted).
     *
     * @param fileKey the file's identity (device and inode), null for a directory
     */
    record Found(String name, Object fileKey, long size, long modifiedMillis) {
        static Found of(String name, BasicFileAttributes a) {
            return a.isDirectory() ? new Found(name, null, 0, 0)
                    : new Found(name, a.fileKey(), a.size(), a.lastModifiedTime().toMillis());
        }
    }

    /**
     * {@code files} (in name order) with those that {@code priorities} name first: for each name in turn, the
     * file of that name, or every file under the directory of that name in name order; then every other file
     * in name order. A file is placed once, where it is first named; a name that matches nothing changes nothing.
     * Costs a lookup per name and per file, however the names nest or repeat.
     */
    static List<SourceFile> prioritized(List<SourceFile> files, List<String> priorities) {
        if (priorities.isEmpty()) {
            return files;
        }
        TreeMap<String, Integer> remaining = new TreeMap<>();
        for (int i = 0; i < files.size(); i++) {
            remaining.put(files.get(i).name(), i);
        }
        List<SourceFile> ordered = new ArrayList<>(files.size());
        BitSet taken = new BitSet(files.size());
        for (String p : priorities) {
            Integer exact = remaining.remove(p);
            if (exact != null) {
                ordered.add(files.get(exact));
                taken.set(exact);
            }
            // every name under "p/": from "p/" up to "p0" ('0' follows '/'); taken out as it is placed
            SortedMap<String, Integer> under = remaining.subMap(p + "/", p + "0");
            int[] indices = under.values().stream().mapToInt(Integer::intValue).sorted().toArray();
            under.clear();
            for (int i : indices) {
                ordered.add(files.get(i));
                taken.set(i);
            }
        }
        for (int i = taken.nextClearBit(0); i < files.size(); i = taken.nextClearBit(i + 1)) {
            ordered.add(files.get(i));
        }
        return ordered;
    }

    /**
     * {@code found} in the order of {@code Files.walk(...).sorted()}: by the paths' bytes in the file system's
     * encoding, compared unsigned, as {@code UnixPath} compares them. In UTF-8 (and Latin-1, ASCII) that is the
     * names' code points in order, compared where they are, with nothing made per comparison: making a
     * {@link Path} of both names at every comparison, as other encodings still need, cost 4-6 s for a tree of a
     * million files.
     */
    static List<Found> inPathOrder(List<Found> found) {
        Comparator<String> order = BYTES_IN_CODE_POINT_ORDER ? StripedTransfer::compareCodePoints
                : Comparator.comparing(Path::of);
        found.sort(Comparator.comparing(Found::name, order));
        return found;
    }

    /** Whether file names become bytes whose order is that of their code points ({@code sun.jnu.encoding}). */
    private static final boolean BYTES_IN_CODE_POINT_ORDER = Set.of("UTF-8", "ISO-8859-1", "US-ASCII")
            .contains(fileNameEncoding().name());

    private static Charset fileNameEncoding() {
        try {
            return Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"));
        } catch (IllegalArgumentException e) {
            return StandardCharsets.UTF_8;
        }
    }

    /**
     * Compares by code point, as the strings' UTF-8 bytes compare: {@link String#compareTo} compares UTF-16 units,
     * which puts a character beyond the BMP (a surrogate pair) before U+E000-U+FFFF.
     */
    static int compareCodePoints(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y) {
                boolean pairX = Character.isSurrogate(x);
                boolean pairY = Character.isSurrogate(y);
                return pairX == pairY ? x - y : pairX ? 1 : -1;
            }
        }
        return a.length() - b.length();
    }

    /**
     * Collects the directories and regular files under {@code dir}, named {@code prefix + name}; stops at more
     * than {@code maxEntries}, each of which the transfer would keep and announce as a block does.
     */
    private static void walk(DirectoryHandle dir, String prefix, List<Found> found, long maxEntries,
                             PlanBudget.Charge charge) throws IOException {
        for (String name : dir.names()) {
            if (found.size() >= maxEntries) {
                throw TransferTooLargeException.entries(maxEntries);
            }
            charge.addOne(); // before anything is kept of it
            if (UploadNames.isReserved(name)) {
                continue; // a file being written, or a run's lock: not what the directory holds
            }
            Optional<BasicFileAttributes> a = dir.attributes(name);
            if (a.isEmpty()) {
                continue; // removed meanwhile
            }
            if (a.get().isDirectory()) {
                found.add(Found.of(prefix + name, a.get()));
                try (DirectoryHandle child = dir.directory(name)) {
                    walk(child, prefix + name + "/", found, maxEntries, charge);
                }
            } else if (a.get().isRegularFile()) {
                found.add(Found.of(prefix + name, a.get()));
            } // symbolic links and special files are not transferred
        }
    }

    /** Opens the transfer's files one after another, as the striping engine reads them. */
    public Sources sources() {
        return new Sources();
    }

    /**
     * Opens files of the transfer again from the root's handle, links not followed; a file fails if its name now
     * names another file than the one planned. The file read last stays open for the next block, and the handle of
     * its directory for the next file in it (a tree's files come directory by directory), so a directory of many
     * small files is walked to once.
     */
    public final class Sources implements AutoCloseable {
        private DirectoryHandle dir;
        private Path dirPath;
        private FileChannel open;
        private int openIndex = -1;

        private Sources() {
        }

        /** File {@code index}, open until another is asked for or this closes. */
        public FileChannel open(int index) throws IOException {
            if (index == openIndex) {
                return open;
            }
            closeFile();
            SourceFile f = files.get(index);
            Path real = f.real();
            Path parent = real.getParent();
            if (!parent.equals(dirPath)) {
                closeDirectory();
                dir = root.open(parent);
                dirPath = parent;
            }
            open = dir.readFile(real.getFileName().toString(), f.fileKey());
            openIndex = index;
            return open;
        }

        private void closeFile() throws IOException {
            if (open != null) {
                FileChannel ch = open;
                open = null;
                openIndex = -1;
                ch.close();
            }
        }

        private void closeDirectory() throws IOException {
            if (dir != null) {
                DirectoryHandle d = dir;
                dir = null;
                dirPath = null;
                d.close();
            }
        }

        @Override
        public void close() throws IOException {
            try {
                closeFile();
            } finally {
                closeDirectory();
            }
        }
    }

    public TransferId id() {
        return id;
    }

    /** This transfer's share of the server's {@link PlanBudget}. */
    public PlanBudget.Charge charge() {
        return charge;
    }

    /** Whether a directory (rather than one file) is retrieved. */
    public boolean isDirectory() {
        return directory;
    }

    public TransferOptions options() {
        return options;
    }

    /** The AES key, or null for a clear transfer. */
    public TransferKey key() {
        return key;
    }

    public List<String> directories() {
        return directories;
    }

    public List<SourceFile> files() {
        return files;
    }

    /** The numbering of the blocks: which bytes of which file block {@code seq} is. */
    public BlockPlan plan() {
        return plan;
    }

    public long totalBytes() {
        return totalBytes;
    }

    /**
     * The most block bytes this transfer can push to one relay: every block sealed once (a relay never holds two
     * replicas of one block), each at most its data plus header, descriptor with the longest name, GCM tag and
     * wire checksum (compression keeps a block only if it got shorter). What OPEN_TRANSFER declares as its space.
     */
    public long maxBytesPerRelay() {
        int longestName = files.stream().mapToInt(f -> f.name().getBytes(StandardCharsets.UTF_8).length)
                .max().orElse(0);
        long perBlock = BlockHeader.FIXED_LENGTH + BlockDescriptor.FIXED_LENGTH + longestName + BlockHeader.TAG_LENGTH
                + options.checksum().length();
        return Math.max(1, totalBytes + plan.count() * perBlock); // an empty directory still opens
    }

    /** A sender pipeline whose first sealed block gets sequence number {@code firstSeq}. */
    public BlockPipeline pipeline(long firstSeq) {
        return pipeline(firstSeq, null);
    }

    /**
     * As {@link #pipeline(long)}, digesting each block's plaintext on {@code digests} (if not null) beside
     * compression and encryption, so the engine's thread does not hash as well.
     */
    public BlockPipeline pipeline(long firstSeq, java.util.concurrent.Executor digests) {
        BlockPipeline.Builder b = BlockPipeline.builder()
                .digestExecutor(digests)
                .checksum(options.checksum())
                .digest(options.digest())
                .sequence(new NonceSequence(firstSeq));
        if (options.compressionLevel() > 0) {
            b.compression(options.compressionLevel());
        }
        if (key != null) {
            b.encryption(key);
        } else {
            b.transferId(id.value());
        }
        return b.build();
    }

    /**
     * Reads the plaintext of {@code block} from its file, or files when it carries several (a pooled direct buffer
     * the caller releases), behind {@code room} free bytes ({@link BlockPipeline#roomBefore}).
     */
    public ByteBuf read(Sources sources, BlockPlan.Block block, int room) throws IOException {
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(room + block.length()).setIndex(room, room);
        try {
            for (FileSegment s : plan.segments(block)) {
                FileChannel file = sources.open(s.file());
                int end = buf.writerIndex() + s.length();
                long pos = s.offset();
                while (buf.writerIndex() < end) {
                    int n = buf.writeBytes(file, pos, end - buf.writerIndex());
                    if (n < 0) {
                        throw new IOException(files.get(s.file()).name() + ": ends at " + pos + " (expected: "
                                + files.get(s.file()).size() + " bytes; the file changed during the transfer)");
                    }
                    pos += n;
                }
            }
            return buf;
        } catch (IOException | RuntimeException e) {
            buf.release();
            throw e;
        }
    }

    /**
     * Records the plaintext digest of the first sealing of block {@code seq} and holds every later sealing to
     * it: the same key and sequence number mean the same AES-GCM nonce, which is safe only for the same
     * plaintext. False if this sealing's plaintext differs from the first one's (the file changed).
     */
    public boolean sealed(long seq, Digest digest) {
        return firstSealings.sealed(seq, digest);
    }

    /** Marks the blocks the claim covers as held by the client: they are announced, never read or sent. */
    public int hold(ResumeClaim claim) {
        int n = 0;
        for (long seq = 0; seq < plan.count(); seq++) {
            if (plan.segments(plan.block(seq)).stream().allMatch(s -> claim.covers(s.file(), s.offset(), s.length()))) {
                held.set((int) seq);
                n++;
            }
        }
        return n;
    }

    /** Whether the client said it holds block {@code seq} verified from an earlier run. */
    public boolean held(long seq) {
        return held.get((int) seq);
    }

    /**
     * Seals block {@code seq} again, byte for byte as the engine did, for an origin re-fetch. The same key
     * and sequence number mean the same AES-GCM nonce, which is safe only for the same plaintext: if the
     * file changed since the block was announced, the new sealing is discarded, never sent, and this fails.
     */
    public SealedBlock reseal(long seq) throws IOException {
        BlockPlan.Block b = plan.block(seq);
        SourceFile f = files.get(b.file());
        SealedBlock sealed;
        try (Sources sources = sources();
             BlockPipeline pipeline = pipeline(seq)) {
            int room = pipeline.roomBefore(f.name());
            ByteBuf data = read(sources, b, room);
            try {
                sealed = pipeline.seal(data, room, b.offset(), f.name(), b.endOfFile(), null);
            } finally {
                data.release();
            }
        }
        if (!sealed(seq, sealed.digest())) {
            sealed.block().content().release();
            throw new IOException(f.name() + ": block " + seq + " changed since it was announced; not sent again");
        }
        return sealed;
    }
}

package io.fsp.server.collect;

import io.fsp.client.collect.CollectOptions;
import io.fsp.client.collect.CollectSummary;
import io.fsp.client.collect.Collector;
import io.fsp.client.collect.RecordedTransfer;
import io.fsp.client.verify.VerificationMode;
import io.fsp.extension.FspOption;
import io.fsp.server.fs.DirectoryHandle;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.NotRegularFileException;
import io.fsp.server.fs.UserRoot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One FCOL collection (docs/protocol.md §1, "FCOL"): this server collects another server's transfer from that
 * server's relays into a user's root, with the client's {@link Collector} fed from the recorded announcements (no
 * origin: this server holds no credentials there). Files are written only through directory handles from the
 * root ({@link HandleTree}); the resume journal lies in this server's state directory, out of the user's reach,
 * and is removed at the end: a collection that failed is run again from the start. Beside the journal lie where the
 * files go and the names of their private directories, which {@link Leftovers} sweeps when the server starts
 * after one died mid-collection.
 */
public final class ServerCollection {
    private static final Logger log = LoggerFactory.getLogger(ServerCollection.class);
    private static final Duration RELAY_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

    /** Some files have blocks announced origin or direct, which only the origin's own client can fetch. */
    public static final class NotOnRelaysException extends IOException {
        private static final long serialVersionUID = 1L;

        NotOnRelaysException(String message) {
            super(message);
        }
    }

    private final UserRoot root;
    private final FtpPath destination;
    private final RecordedTransfer recorded;
    private final Path work;
    private volatile Collector collector;

    /** @param work a directory of this server's own, not existing yet, for the journal (deleted at the end) */
    public ServerCollection(UserRoot root, FtpPath destination, RecordedTransfer recorded, Path work) {
        this.root = root;
        this.destination = destination;
        this.recorded = recorded;
        this.work = work;
    }

    /** Bytes verified on disk so far. */
    public long bytesDone() {
        Collector c = collector;
        return c == null ? 0 : c.bytesDone();
    }

    public long totalBytes() {
        return recorded.transfer().bytes();
    }

    /** Collects and verifies every file; the summary says whether all of it is on disk, verified. */
    public CollectSummary run() throws IOException, InterruptedException {
        List<String> missing = recorded.missingFiles();
        if (!missing.isEmpty() || recorded.unrecordedFiles() > 0) {
            int count = missing.size() + recorded.unrecordedFiles();
            throw new NotOnRelaysException("FCOL: " + count + " of " + recorded.transfer().files()
                    + " files are not wholly on relays" + (missing.isEmpty() ? "" : " (" + String.join(", ",
                    missing.subList(0, Math.min(5, missing.size()))) + (missing.size() > 5 ? ", …" : "") + ")")
                    + ": blocks announced origin or direct cannot be collected here; retrieve with relays only"
                    + " (FSPO use-relays=on include-direct=off)");
        }
        boolean directory = recorded.transfer().directory();
        if (!directory && destination.isRoot()) {
            throw new NotRegularFileException(destination.toString(), "the root"); // FCOL's reply names the path
        }
        Files.createDirectories(work);
        // Where this collection writes, and (below) each private directory it makes: swept if the server dies.
        FtpPath base = directory ? destination : destination.parent();
        Files.writeString(work.resolve(Leftovers.BASE), root.realRoot() + "\n" + base + "\n");
        try (Leftovers.Ledger ledger = new Leftovers.Ledger(work.resolve(Leftovers.MADE));
             HandleTree tree = open(directory, ledger)) {
            // A single file takes the destination's name; the journal lies beside that name in the work directory.
            Path journalPlace = work.resolve(directory ? "collection" : destination.name());
            CollectOptions options = CollectOptions.withoutOrigin("fcol", destination.toString(), journalPlace,
                    streams(), VerificationMode.FIVER, RELAY_TIMEOUT, CONNECT_TIMEOUT).withDirectWrites(false);
            collector = new Collector(options, recorded, tree);
            CollectSummary summary = null;
            try {
                summary = collector.run();
                return summary;
            } finally {
                if (summary == null || !summary.complete()) {
                    removeTemporaryFiles(tree);
                }
            }
        } finally {
            deleteWork();
        }
    }

    /** The parallel fetches per relay the origin's client asked for (its FSPO streams), 4 if none. */
    private int streams() {
        return recorded.transfer().options().getOrDefault(FspOption.STREAMS);
    }

    /**
     * The directory the files go into, opened from the root's handle: for a directory the destination itself
     * (made if missing), for a single file the destination's directory. A link in the destination's last place
     * is refused; one in an earlier place is followed only inside the root, as for every command.
     */
    private HandleTree open(boolean directory, HandleTree.Ledger ledger) throws IOException {
        DirectoryHandle staging = root.openRoot();
        try {
            if (directory && destination.isRoot()) {
                return new HandleTree(root.openRoot(), staging, ledger);
            }
            try (UserRoot.Entry e = root.entry(destination)) {
                var existing = e.dir().attributes(e.name());
                if (directory) {
                    if (existing.isEmpty()) {
                        e.dir().createDirectory(e.name(), staging);
                    }
                    return new HandleTree(e.dir().directory(e.name()), staging, ledger);
                }
                if (existing.isPresent() && !existing.get().isRegularFile()) {
                    throw new NotRegularFileException(destination.toString(), existing.get().isDirectory() ? "a directory"
                            : existing.get().isSymbolicLink() ? "a symbolic link" : "a FIFO, socket or device");
                }
                return new HandleTree(root.directory(destination.parent()), staging, ledger);
            }
        } catch (IOException | RuntimeException e) {
            staging.close();
            throw e;
        }
    }

    /**
     * A failed collection is not resumed (its journal goes): the temporary files not renamed into place, and their
     * private directories, would only take the user's space. Files already complete keep their names; they were
     * verified.
     */
    private void removeTemporaryFiles(HandleTree tree) {
        try {
            tree.discardAllTemporary();
        } catch (IOException | RuntimeException e) {
            log.info("FCOL {}: temporary files left: {}", destination, e.toString());
        }
    }

    private void deleteWork() throws IOException {
        if (!Files.exists(work)) {
            return;
        }
        try (Stream<Path> all = Files.walk(work)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}

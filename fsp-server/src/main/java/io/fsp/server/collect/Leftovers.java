package io.fsp.server.collect;

import io.fsp.server.fs.DirectoryHandle;
import io.fsp.server.fs.FtpPath;
import io.fsp.server.fs.UploadNames;
import io.fsp.server.fs.UserRoot;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What FCOL collections of a server that died left in users' roots: each collection's work directory (in the state
 * directory) names the user's root and the directory it wrote into ({@value #BASE}) and, in {@value #MADE}, every
 * private directory ({@code .NAME.fsp-part-RANDOM/}) it made, noted before it was made. When the server starts, the
 * private directories so named are removed (through handles from the root, links never followed; nothing else is
 * touched: the names are random, no live collection has them), then the work directories.
 */
public final class Leftovers {
    private static final Logger log = LoggerFactory.getLogger(Leftovers.class);
    static final String BASE = "base";
    static final String MADE = "made";

    private Leftovers() {
    }

    /** The work directories under {@code fcolDir} now: those of collections that died with an earlier process. */
    public static List<Path> find(Path fcolDir) throws IOException {
        if (!Files.isDirectory(fcolDir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(fcolDir)) {
            return s.filter(Files::isDirectory).toList();
        }
    }

    /** Removes what each of {@code works} left, then the work directory; a failure is logged and the rest goes on. */
    public static void sweep(List<Path> works) {
        for (Path work : works) {
            int removed = 0;
            try {
                removed = sweepOne(work);
                deleteTree(work);
                log.info("FCOL leftovers of {}: {} temporary director(ies) removed", work.getFileName(), removed);
            } catch (IOException | RuntimeException e) {
                log.warn("FCOL leftovers of {}: {} removed, then: {}", work, removed, e.toString());
            }
        }
    }

    private static int sweepOne(Path work) throws IOException {
        Path baseFile = work.resolve(BASE);
        Path made = work.resolve(MADE);
        if (!Files.exists(baseFile) || !Files.exists(made)) {
            return 0; // nothing was made in a user's root
        }
        List<String> base = Files.readAllLines(baseFile, StandardCharsets.UTF_8);
        UserRoot root = new UserRoot(Path.of(base.get(0)));
        int removed = 0;
        try (DirectoryHandle dir = root.directory(FtpPath.ROOT.resolve(base.get(1)))) {
            for (String name : Files.readAllLines(made, StandardCharsets.UTF_8)) {
                if (!name.isEmpty() && removePrivate(dir, name)) {
                    removed++;
                }
            }
        } catch (NoSuchFileException e) {
            return 0; // the directory it wrote into is gone, and with it what was left there
        }
        return removed;
    }

    /** Removes the private directory {@code name} (relative to {@code base}) and the file in it, if they are there. */
    private static boolean removePrivate(DirectoryHandle base, String name) throws IOException {
        String[] segments = name.split("/");
        if (!UploadNames.isPartial(segments[segments.length - 1])) {
            throw new IOException(name + ": not a collection's temporary directory");
        }
        List<DirectoryHandle> opened = new ArrayList<>();
        try {
            DirectoryHandle dir = base;
            for (int i = 0; i < segments.length - 1; i++) {
                dir = dir.directory(segments[i]);
                opened.add(dir);
            }
            String last = segments[segments.length - 1];
            var a = dir.attributes(last);
            if (a.isEmpty() || !a.get().isDirectory()) {
                return false;
            }
            try (DirectoryHandle own = dir.directory(last)) {
                for (String f : own.names()) {
                    own.deleteFile(f);
                }
            }
            dir.deleteDirectory(last);
            return true;
        } catch (NoSuchFileException e) {
            return false;
        } finally {
            for (DirectoryHandle h : opened) {
                h.close();
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Appends each private directory's name to a collection's {@value #MADE} file before the directory is made. */
    static final class Ledger implements HandleTree.Ledger, AutoCloseable {
        private final FileChannel file;

        Ledger(Path file) throws IOException {
            this.file = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND);
        }

        @Override
        public synchronized void made(String dir) throws IOException {
            // written at once (one write(2)), not forced: a machine that crashes may leave a directory unswept
            file.write(java.nio.ByteBuffer.wrap((dir + "\n").getBytes(StandardCharsets.UTF_8)));
        }

        @Override
        public void close() throws IOException {
            file.close();
        }
    }
}

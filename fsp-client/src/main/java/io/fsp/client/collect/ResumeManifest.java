package io.fsp.client.collect;

import io.fsp.client.control.ControlChannel;
import io.fsp.client.control.Reply;
import io.fsp.client.journal.JournalRecord;
import io.fsp.client.journal.ResumeJournal;
import io.fsp.client.journal.TransferIdentity;
import java.io.IOException;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What lets a rerun of a get resume: the journal of verified blocks and, beside it, the manifest (the transfer's
 * kind and {@code FILE} lines), from which a rerun tells the server which blocks it holds (FHAV) before FRET.
 * Both live beside the destination as {@code .NAME.fsp-journal} and {@code .NAME.fsp-manifest}.
 */
final class ResumeManifest {
    private static final Logger log = LoggerFactory.getLogger(ResumeManifest.class);
    private static final int FHAV_RANGES_PER_LINE = 128;

    private final CollectOptions options;

    ResumeManifest(CollectOptions options) {
        this.options = options;
    }

    Path journalFile() {
        return beside("fsp-journal");
    }

    Path manifestFile() {
        return beside("fsp-manifest");
    }

    private Path beside(String suffix) {
        Path dest = options.destination().toAbsolutePath();
        Path parent = dest.getParent() == null ? dest : dest.getParent();
        return parent.resolve("." + dest.getFileName() + "." + suffix);
    }

    /** Who the journal belongs to: this server, path and verification mode, and these files (by their manifest). */
    TransferIdentity identity(long totalBytes, long newestModifiedMillis, String manifestDigest) {
        return new TransferIdentity(options.server(), options.remotePath(), totalBytes, newestModifiedMillis, manifestDigest,
                options.verify().name().toLowerCase(Locale.ROOT));
    }

    /** The SHA-256 of the {@code FILE} lines, one a line: the server's identity for "the files did not change". */
    static String digest(List<String[]> fileLines) {
        MessageDigest md = sha256();
        for (String[] w : fileLines) {
            md.update(String.join(" ", w).getBytes(StandardCharsets.UTF_8));
            md.update((byte) '\n');
        }
        return HexFormat.of().formatHex(md.digest());
    }

    /** Writes the manifest (atomically: a rerun finds the old one or the new one). */
    void save(boolean directory, List<String[]> fileLines) throws IOException {
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

    /** The transfer is complete: nothing to resume. */
    void delete(ResumeJournal journal) throws IOException {
        journal.delete();
        Files.deleteIfExists(manifestFile());
    }

    /**
     * On a rerun, tells the server which blocks the journal holds verified (FHAV), so that it neither reads nor
     * sends them again; the server honours this only if the files did not change since (same manifest). Without
     * a journal and manifest of this transfer it says nothing. A server that does not know FHAV is not asked again.
     */
    void claimHeld(ControlChannel control) throws IOException, InterruptedException {
        Path manifest = manifestFile();
        if (!Files.exists(manifest) || !Files.exists(journalFile())) {
            return;
        }
        List<String> lines = Files.readAllLines(manifest, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !lines.get(0).startsWith("KIND ")) {
            return;
        }
        boolean dir = lines.get(0).equals("KIND directory");
        Map<String, Integer> indexByLocal = new HashMap<>();
        long total = 0;
        long newest = 0;
        List<String[]> fileLines = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] w = line.split(" ");
            if (w.length != 5 || !w[0].equals("FILE")) {
                return; // not a manifest this client wrote
            }
            String name = URLDecoder.decode(w[4], StandardCharsets.UTF_8);
            indexByLocal.put(dir ? name : options.destination().toAbsolutePath().getFileName().toString(),
                    Integer.parseInt(w[1]));
            total += Long.parseLong(w[2]);
            newest = Math.max(newest, Long.parseLong(w[3]));
            fileLines.add(w);
        }
        String digestHex = digest(fileLines);
        Map<Integer, TreeMap<Long, Long>> held = new TreeMap<>();
        for (JournalRecord r : ResumeJournal.peek(journalFile(), identity(total, newest, digestHex))) {
            Integer index = indexByLocal.get(r.path());
            if (index != null && r.length() > 0) {
                held.computeIfAbsent(index, i -> new TreeMap<>()).put(r.offset(), r.offset() + r.length());
            }
        }
        for (Map.Entry<Integer, TreeMap<Long, Long>> file : held.entrySet()) {
            List<String> ranges = merged(file.getValue());
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

    /** Byte ranges (start → end) joined where they touch or overlap, as {@code start-end}. */
    private static List<String> merged(TreeMap<Long, Long> ranges) {
        List<String> out = new ArrayList<>();
        long start = -1;
        long end = -1;
        for (Map.Entry<Long, Long> r : ranges.entrySet()) {
            if (r.getKey() <= end) {
                end = Math.max(end, r.getValue());
                continue;
            }
            if (start >= 0) {
                out.add(start + "-" + end);
            }
            start = r.getKey();
            end = r.getValue();
        }
        out.add(start + "-" + end);
        return out;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}

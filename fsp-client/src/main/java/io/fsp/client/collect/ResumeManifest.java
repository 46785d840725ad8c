package io.fsp.client.collect;

import io.fsp.client.control.FspConversation;
import io.fsp.client.journal.JournalRecord;
import io.fsp.client.journal.ResumeJournal;
import io.fsp.client.journal.TransferIdentity;
import io.fsp.client.write.AtomicFileWriter;
import io.fsp.extension.Announcement;
import io.fsp.extension.ByteRange;
import io.fsp.extension.ExtensionCodec;
import io.fsp.extension.FileSegment;
import io.fsp.extension.HeldRanges;
import io.fsp.extension.Manifest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What lets a rerun of a get resume: the journal of verified blocks and, beside it, the manifest (the transfer's
 * kind and {@code FILE} lines), from which a rerun tells the server which blocks it holds (FHAV) before FRET.
 * Both live beside the destination as {@code .NAME.fsp-journal} and {@code .NAME.fsp-manifest}, with the run's
 * {@code .NAME.fsp-lock} ({@link io.fsp.client.write.DestinationLock}) while it runs.
 */
final class ResumeManifest {
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

    /** The lock a run holds while it writes to the destination. */
    Path lockFile() {
        return beside("fsp-lock");
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

    /** Writes the manifest (atomically: a rerun finds the old one or the new one). */
    void save(boolean directory, List<Announcement.File> files) throws IOException {
        StringBuilder sb = new StringBuilder(directory ? "KIND directory\n" : "KIND file\n");
        for (Announcement.File f : files) {
            sb.append(ExtensionCodec.format(f)).append('\n');
        }
        AtomicFileWriter.write(manifestFile(), sb.toString().getBytes(StandardCharsets.UTF_8));
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
    void claimHeld(FspConversation fsp) throws IOException, InterruptedException {
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
        Manifest earlier;
        List<Announcement.File> earlierFiles = new ArrayList<>();
        try {
            for (String line : lines.subList(1, lines.size())) {
                if (!(ExtensionCodec.parse(line) instanceof Announcement.File f)) {
                    return; // not a manifest this client wrote
                }
                indexByLocal.put(dir ? f.name() : options.destination().toAbsolutePath().getFileName().toString(), f.index());
                earlierFiles.add(f);
            }
            earlier = new Manifest(earlierFiles);
        } catch (IllegalArgumentException e) {
            return; // not a manifest this client wrote
        }
        String digestHex = earlier.digest();
        Map<Integer, List<ByteRange>> held = new TreeMap<>();
        for (JournalRecord r : ResumeJournal.peek(journalFile(),
                identity(earlier.totalBytes(), earlier.newestModifiedMillis(), digestHex))) {
            Integer index = indexByLocal.get(r.path());
            if (index == null || r.length() == 0) {
                continue;
            }
            List<FileSegment> segments;
            try { // a block that carried small files holds a range of each
                segments = FileSegment.of(index, r.offset(), r.length(), earlierFiles.size(), f -> earlierFiles.get(f).size());
            } catch (IllegalArgumentException e) {
                continue; // not a block of this manifest: claim nothing for it
            }
            for (FileSegment seg : segments) {
                held.computeIfAbsent(seg.file(), i -> new ArrayList<>()).add(new ByteRange(seg.offset(), seg.end()));
            }
        }
        for (Map.Entry<Integer, List<ByteRange>> file : held.entrySet()) {
            for (HeldRanges line : HeldRanges.lines(digestHex, file.getKey(), ByteRange.coalesce(file.getValue()))) {
                if (!fsp.claim(line)) {
                    return;
                }
            }
        }
    }
}

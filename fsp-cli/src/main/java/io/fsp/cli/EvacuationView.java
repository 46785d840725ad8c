package io.fsp.cli;

import static io.fsp.client.collect.CollectSummary.quote;

import io.fsp.client.collect.EvacuationInventory;
import io.fsp.client.collect.EvacuationInventory.FileEntry;
import io.fsp.client.collect.EvacuationInventory.FileHealth;
import io.fsp.client.collect.EvacuationInventory.RelayEntry;
import io.fsp.client.collect.EvacuationRelays.Answer;
import io.fsp.client.evacuate.EvacuationManifest;
import io.fsp.crypto.RecipientKey;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.stream.Collectors;

/**
 * What {@code fsp collect --list} and {@code --check} print of an evacuation manifest, and how {@code fsp release}
 * and they open one.
 */
final class EvacuationView {
    private EvacuationView() {
    }

    /** The manifest sealed to {@code identity}, or null once {@code err} says why not (exit 1). */
    static EvacuationManifest open(String command, Path manifest, Path identity, PrintWriter err) {
        RecipientKey key;
        try {
            key = RecipientKey.readIdentity(identity);
        } catch (IOException | RuntimeException e) {
            err.println(command + ": " + identity + ": cannot read the identity: "
                    + (e instanceof java.nio.file.NoSuchFileException ? "no such file" : e.getMessage()));
            return null;
        }
        if (!Files.isRegularFile(manifest)) {
            err.println(command + ": " + manifest + ": no such manifest (expected: the file 'fsp evacuate --manifest'"
                    + " wrote)");
            return null;
        }
        try {
            return EvacuationManifest.read(manifest, key);
        } catch (EvacuationManifest.ManifestException | IOException e) {
            err.println(command + ": " + manifest + ": " + e.getMessage());
            return null;
        }
    }

    /** {@code --list}: the files, their blocks and copies, the retention, the relays. */
    static void list(EvacuationManifest m, EvacuationInventory inv, boolean json, PrintWriter out) {
        List<FileEntry> files = inv.files();
        if (json) {
            StringJoiner fs = new StringJoiner(",", "[", "]");
            for (FileEntry f : files) {
                fs.add("{\"name\":" + quote(f.name()) + ",\"size\":" + f.size() + ",\"blocks\":" + f.seqs().size()
                        + ",\"min_copies\":" + f.minCopies() + ",\"max_copies\":" + f.maxCopies() + ",\"whole\":" + f.whole()
                        + "}");
            }
            out.println(header(m, inv) + ",\"files\":" + fs + ",\"relays\":" + relaysJson(inv) + "}");
            return;
        }
        out.println(headerText(m, inv));
        out.println("  files: " + files.size() + " (" + files.stream().mapToLong(FileEntry::size).sum() + " bytes), "
                + inv.blocks() + " blocks on relays, copies " + copies(files.stream().filter(f -> !f.seqs().isEmpty())
                .mapToInt(FileEntry::minCopies).min().orElse(0), files.stream().mapToInt(FileEntry::maxCopies).max()
                .orElse(0)) + (inv.unrecordedFiles() > 0 ? "; " + inv.unrecordedFiles() + " more files not recorded" : ""));
        out.println("  relays:");
        for (RelayEntry r : inv.relays()) {
            out.println("    " + r.address() + "  " + r.seqs().size() + " blocks  " + r.fingerprint());
        }
        out.println("  files (size, blocks, copies):");
        for (FileEntry f : files) {
            out.println("    " + f.name() + "  " + f.size() + " bytes  " + f.seqs().size() + " blocks  "
                    + (f.whole() ? "copies " + copies(f.minCopies(), f.maxCopies()) : "NOT EVACUATED WHOLE"));
        }
    }

    /**
     * {@code --check}: what each relay still holds, and per file the fewest copies held; returns whether every file
     * can still be collected whole.
     */
    static boolean check(EvacuationManifest m, EvacuationInventory inv, Map<Integer, Answer> answers, boolean json,
                         PrintWriter out) {
        Map<Integer, Set<Long>> held = answers.entrySet().stream().filter(e -> e.getValue().answered())
                .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().held()));
        List<FileHealth> health = inv.health(held);
        List<FileHealth> atRisk = health.stream().filter(h -> !h.collectable()).toList();
        boolean whole = atRisk.isEmpty() && inv.unrecordedFiles() == 0;
        List<Answer> down = answers.values().stream().filter(a -> !a.answered()).toList();
        if (json) {
            StringJoiner rs = new StringJoiner(",", "[", "]");
            for (Answer a : answers.values()) {
                rs.add("{\"relay\":" + quote(a.relay().address()) + ",\"placed\":" + a.relay().seqs().size()
                        + ",\"held\":" + (a.answered() ? a.held().size() : "null") + ",\"error\":" + quote(a.error()) + "}");
            }
            StringJoiner fs = new StringJoiner(",", "[", "]");
            for (FileHealth h : health) {
                fs.add("{\"name\":" + quote(h.file().name()) + ",\"copies_placed\":" + h.file().minCopies()
                        + ",\"copies_held\":" + h.minHeld() + ",\"lost_blocks\":" + h.lost() + ",\"collectable\":"
                        + h.collectable() + "}");
            }
            out.println(header(m, inv) + ",\"collectable\":" + whole + ",\"relays\":" + rs + ",\"files\":" + fs + "}");
            return whole;
        }
        out.println(headerText(m, inv));
        for (Answer a : answers.values()) {
            out.println("  relay " + a.relay().address() + ": " + (a.answered()
                    ? "holds " + a.held().size() + " of the " + a.relay().seqs().size() + " blocks placed there"
                    : "UNREACHABLE (" + a.error() + "): its " + a.relay().seqs().size() + " blocks count as lost"));
        }
        for (FileHealth h : health) {
            out.println("  " + h.file().name() + ": " + (!h.file().whole() ? "NOT EVACUATED WHOLE"
                    : h.file().seqs().isEmpty() ? "empty, nothing to hold"
                    : h.minHeld() + " of " + h.file().minCopies() + " copies held" + (h.lost().isEmpty() ? ""
                    : "; AT RISK: blocks " + h.lost() + " held by no relay answering")));
        }
        out.println("  " + (whole ? "every file can still be collected whole" : atRisk.size() + " of "
                + health.size() + " files cannot be collected whole: " + atRisk.stream().map(h -> h.file().name())
                .collect(Collectors.joining(", ")) + (inv.unrecordedFiles() > 0 ? " and " + inv.unrecordedFiles()
                + " files the manifest does not name" : ""))
                + (down.isEmpty() ? "" : "; relays unreachable: " + down.stream().map(a -> a.relay().address())
                .collect(Collectors.joining(", "))));
        return whole;
    }

    /** The JSON object's opening fields (left open). */
    private static String header(EvacuationManifest m, EvacuationInventory inv) {
        return "{\"transfer_id\":" + quote(inv.transferId().toString()) + ",\"origin\":" + quote(m.origin().toString())
                + ",\"origin_fingerprint\":" + quote(m.originFingerprint().toString()) + ",\"state\":"
                + quote(m.state().label()) + ",\"created\":" + quote(m.created().toString()) + ",\"retain_until\":"
                + quote(m.retainUntil().toString()) + ",\"blocks\":" + inv.blocks();
    }

    private static String headerText(EvacuationManifest m, EvacuationInventory inv) {
        return "evacuation " + inv.transferId() + " of " + m.origin() + System.lineSeparator()
                + "  state: " + m.state().label() + ", created " + m.created() + ", retained by the relays until "
                + m.retainUntil() + System.lineSeparator()
                + "  origin certificate: " + m.originFingerprint();
    }

    private static String relaysJson(EvacuationInventory inv) {
        List<String> rs = new ArrayList<>();
        for (RelayEntry r : inv.relays()) {
            rs.add("{\"relay\":" + quote(r.address()) + ",\"fingerprint\":" + quote(r.fingerprint().toString())
                    + ",\"blocks\":" + r.seqs().size() + "}");
        }
        return "[" + String.join(",", rs) + "]";
    }

    private static String copies(int min, int max) {
        return min == max ? Integer.toString(min) : min + "-" + max;
    }
}

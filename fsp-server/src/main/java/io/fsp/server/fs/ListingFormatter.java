package io.fsp.server.fs;

import java.io.IOException;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Directory listings in the three forms FTP clients parse: {@code LIST} as {@code ls -l} lines (RFC 959
 * leaves the format open; every client parses the Unix form), {@code NLST} names, and RFC 3659 §7 facts
 * for {@code MLSD}/{@code MLST}. Links that leave the root are left out, links inside it show their target.
 */
public final class ListingFormatter {
    /** Directories with more entries than this are cut short; a listing must not exhaust memory. */
    public static final int MAX_ENTRIES = 200_000;

    private static final DateTimeFormatter RECENT = DateTimeFormatter.ofPattern("MMM dd HH:mm", Locale.ENGLISH)
            .withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter OLD = DateTimeFormatter.ofPattern("MMM dd  yyyy", Locale.ENGLISH)
            .withZone(ZoneOffset.UTC);
    /** RFC 3659 §2.3 time-val. */
    public static final DateTimeFormatter TIME_VAL = DateTimeFormatter.ofPattern("yyyyMMddHHmmss", Locale.ROOT)
            .withZone(ZoneOffset.UTC);
    private static final Duration HALF_YEAR = Duration.ofDays(182);

    private ListingFormatter() {
    }

    /**
     * Reads the entries of the directory {@code dir}, sorted by name, through its handle; a link is shown
     * with its target's attributes if the target is inside the root, else left out.
     */
    public static List<DirectoryEntry> read(UserRoot root, FtpPath dir) throws IOException {
        List<DirectoryEntry> entries = new ArrayList<>();
        try (DirectoryHandle handle = root.directory(dir)) {
            for (String name : handle.names()) {
                if (UploadNames.isReserved(name)) { // unreachable by any command: not listed either
                    continue;
                }
                Optional<BasicFileAttributes> attrs = handle.attributes(name);
                if (attrs.isPresent() && attrs.get().isSymbolicLink()) {
                    try {
                        attrs = Optional.of(root.attributes(dir.child(name)));
                    } catch (IOException e) {
                        continue; // dangling, or leaving the root
                    }
                }
                if (attrs.isEmpty()) {
                    continue; // deleted while listing
                }
                entries.add(DirectoryEntry.of(name, attrs.get()));
                if (entries.size() >= MAX_ENTRIES) {
                    break;
                }
            }
        }
        entries.sort(Comparator.comparing(DirectoryEntry::name));
        return entries;
    }

    /** One {@code ls -l} line, without the line end. */
    public static String listLine(DirectoryEntry e, Instant now) {
        String type = switch (e.kind()) {
            case DIRECTORY -> "d";
            case FILE -> "-";
            case OTHER -> "?";
        };
        String when = Duration.between(e.modified(), now).abs().compareTo(HALF_YEAR) < 0
                ? RECENT.format(e.modified()) : OLD.format(e.modified());
        return String.format(Locale.ROOT, "%s%s %3d %-8s %-8s %12d %s %s",
                type, mode(e.permissions()), 1, "ftp", "ftp", e.size(), when, e.name());
    }

    /**
     * RFC 3659 §7 facts ending with "; " and the name, e.g. {@code type=file;size=5;modify=20261122000000;perm=r; a.txt}.
     * {@code writable} decides the {@code perm} fact.
     */
    public static String facts(DirectoryEntry e, String name, boolean writable) {
        StringBuilder sb = new StringBuilder();
        sb.append("type=").append(switch (e.kind()) {
            case DIRECTORY -> "dir";
            case FILE -> "file";
            case OTHER -> "OS.unix=special";
        }).append(';');
        if (e.kind() == DirectoryEntry.Kind.FILE) {
            sb.append("size=").append(e.size()).append(';');
        }
        sb.append("modify=").append(TIME_VAL.format(e.modified())).append(';');
        String perm = e.isDirectory() ? (writable ? "elcmpdf" : "el") : (writable ? "rwadf" : "r");
        sb.append("perm=").append(perm).append(';');
        sb.append(' ').append(name);
        return sb.toString();
    }

    private static String mode(Set<PosixFilePermission> p) {
        return new StringBuilder(9)
                .append(p.contains(PosixFilePermission.OWNER_READ) ? 'r' : '-')
                .append(p.contains(PosixFilePermission.OWNER_WRITE) ? 'w' : '-')
                .append(p.contains(PosixFilePermission.OWNER_EXECUTE) ? 'x' : '-')
                .append(p.contains(PosixFilePermission.GROUP_READ) ? 'r' : '-')
                .append(p.contains(PosixFilePermission.GROUP_WRITE) ? 'w' : '-')
                .append(p.contains(PosixFilePermission.GROUP_EXECUTE) ? 'x' : '-')
                .append(p.contains(PosixFilePermission.OTHERS_READ) ? 'r' : '-')
                .append(p.contains(PosixFilePermission.OTHERS_WRITE) ? 'w' : '-')
                .append(p.contains(PosixFilePermission.OTHERS_EXECUTE) ? 'x' : '-')
                .toString();
    }
}

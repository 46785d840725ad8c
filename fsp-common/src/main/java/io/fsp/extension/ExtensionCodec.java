package io.fsp.extension;

import io.fsp.block.RelativePaths;
import io.fsp.checksum.Digest;
import io.fsp.extension.Announcement.Placement;
import io.fsp.net.HostPort;
import io.fsp.tls.Fingerprint;
import io.fsp.token.CapabilityToken;
import io.fsp.token.TokenException;
import io.fsp.token.TransferId;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Writes and reads the lines of the FSP extension (docs/protocol.md §1, "FSP extension"): the {@code 151}
 * announcements of FRET (without the reply code) and the argument of FHAV. Fields are separated by one space;
 * names are percent-encoded UTF-8, so no field holds a space, CR or LF.
 *
 * <p>Reading is strict: a line is accepted only in the exact form this class writes (no leading zeros, no
 * upper-case hex, no other encoding of a name), so {@code format(parse(line))} is {@code line} and digests
 * over lines mean the same at both ends. Anything else is an {@link IllegalArgumentException} naming the field
 * and what was expected; nothing is allocated beyond the line's own size.
 */
public final class ExtensionCodec {
    private static final String[] TRANSFER_FIELDS = {"kind", "files", "directories", "bytes", "blocks"};

    private ExtensionCodec() {
    }

    /** The line for {@code a}, without {@code 151 }. */
    public static String format(Announcement a) {
        if (a instanceof Announcement.Transfer t) {
            StringBuilder sb = new StringBuilder("FSP ").append(t.id()).append(" kind=").append(t.directory() ? "directory" : "file")
                    .append(" files=").append(t.files()).append(" directories=").append(t.directories())
                    .append(" bytes=").append(t.bytes()).append(" blocks=").append(t.blocks());
            t.options().values().forEach(v -> sb.append(' ').append(v));
            return sb.toString();
        } else if (a instanceof Announcement.Key k) {
            return "KEY " + (k.aes() == null ? "none" : Base64.getEncoder().encodeToString(k.aes()));
        } else if (a instanceof Announcement.Token t) {
            return "TOKEN " + t.token().toText();
        } else if (a instanceof Announcement.Relay r) {
            return "RELAY " + r.index() + " " + new HostPort(r.host(), r.port()) + " " + r.fingerprint();
        } else if (a instanceof Announcement.Space sp) {
            return "SPACE " + sp.index() + " " + sp.reserved() + " " + sp.declared();
        } else if (a instanceof Announcement.Refused r) {
            return "REFUSED " + new HostPort(r.host(), r.port()) + " " + r.reason() + " " + ExtensionNames.encodeText(r.text());
        } else if (a instanceof Announcement.Stopped st) {
            return "STOPPED " + st.index() + " " + st.reason() + " " + ExtensionNames.encodeText(st.text());
        } else if (a instanceof Announcement.Directory d) {
            return "DIR " + ExtensionNames.encodeName(d.name());
        } else if (a instanceof Announcement.File f) {
            return "FILE " + f.index() + " " + f.size() + " " + f.modifiedMillis() + " " + ExtensionNames.encodeName(f.name());
        } else if (a instanceof Announcement.Block b) {
            return "BLK " + b.seq() + " " + format(b.placement()) + " " + b.file() + " " + b.offset() + " " + b.length()
                    + " " + (b.digest() == null ? "-" : b.digest().toString());
        }
        throw new AssertionError(a);
    }

    /** {@code relay:2,0}, {@code direct}, {@code origin} or {@code have}. */
    public static String format(Placement p) {
        if (p instanceof Placement.Relays r) {
            StringBuilder sb = new StringBuilder("relay:");
            for (int i = 0; i < r.holders().size(); i++) {
                sb.append(i == 0 ? "" : ",").append(r.holders().get(i));
            }
            return sb.toString();
        }
        return p instanceof Placement.Direct ? "direct" : p instanceof Placement.Origin ? "origin" : "have";
    }

    /** Reads one announcement (the text of a {@code 151} line, without the code). */
    public static Announcement parse(String line) {
        checkLength("announcement", line, ExtensionLimits.MAX_LINE_LENGTH);
        String[] w = line.split(" ", -1);
        Announcement a = switch (w[0]) {
            case "FSP" -> transfer(w);
            case "KEY" -> {
                fields(w, 1);
                yield new Announcement.Key(w[1].equals("none") ? null : base64("KEY", w[1]));
            }
            case "TOKEN" -> {
                fields(w, 1);
                try {
                    yield new Announcement.Token(CapabilityToken.parse(w[1]));
                } catch (TokenException e) {
                    throw new IllegalArgumentException("TOKEN: " + e.getMessage(), e);
                }
            }
            case "RELAY" -> relay(w);
            case "DIR" -> {
                fields(w, 1);
                yield new Announcement.Directory(ExtensionNames.decodeName(w[1]));
            }
            case "FILE" -> {
                fields(w, 4);
                yield new Announcement.File((int) number("file index", w[1], 0, Integer.MAX_VALUE),
                        number("file size", w[2], 0, Long.MAX_VALUE), signed("mtime", w[3]), ExtensionNames.decodeName(w[4]));
            }
            case "BLK" -> block(w);
            case "SPACE" -> {
                fields(w, 3);
                yield new Announcement.Space((int) number("relay index", w[1], 0, ExtensionLimits.MAX_RELAY_INDEX),
                        number("reserved", w[2], 0, Long.MAX_VALUE), number("declared", w[3], 0, Long.MAX_VALUE));
            }
            case "REFUSED" -> {
                fields(w, 3);
                HostPort hostPort = hostPort(w[1]);
                yield new Announcement.Refused(hostPort.host(), hostPort.port(), w[2], ExtensionNames.decodeText(w[3]));
            }
            case "STOPPED" -> {
                fields(w, 3);
                yield new Announcement.Stopped((int) number("relay index", w[1], 0, ExtensionLimits.MAX_RELAY_INDEX), w[2],
                        ExtensionNames.decodeText(w[3]));
            }
            default -> throw new IllegalArgumentException("announcement: '" + shorten(w[0])
                    + "' (expected: FSP, KEY, TOKEN, RELAY, SPACE, REFUSED, STOPPED, DIR, FILE or BLK)");
        };
        canonical(line, format(a));
        return a;
    }

    /** The argument of an FHAV line. */
    public static String format(HeldRanges h) {
        StringBuilder sb = new StringBuilder(h.manifest()).append(' ').append(h.file()).append(' ');
        for (int i = 0; i < h.ranges().size(); i++) {
            sb.append(i == 0 ? "" : ",").append(h.ranges().get(i));
        }
        return sb.toString();
    }

    /**
     * The argument of an FPRI line: {@code name}, relative to the path the next FRET retrieves and
     * {@code /}-separated, percent-encoded as FILE names are.
     */
    public static String formatPriority(String name) {
        ExtensionNames.checkRelativeName("", name);
        return ExtensionNames.encodeName(name);
    }

    /**
     * Reads the argument of an FPRI line: a name of 1..4096 bytes, encoded as FILE names are, a relative path as
     * {@link RelativePaths} has it.
     */
    public static String parsePriority(String argument) {
        checkLength("FPRI", argument, 3 * ExtensionLimits.MAX_NAME_BYTES);
        String name = ExtensionNames.decodeName(argument);
        ExtensionNames.checkRelativeName("", name);
        canonical(argument, ExtensionNames.encodeName(name));
        return name;
    }

    /** Reads the argument of an FHAV line. */
    public static HeldRanges parseHeldRanges(String argument) {
        int max = 64 + 1 + 10 + 1 + ExtensionLimits.MAX_RANGES_PER_LINE * 40;
        checkLength("FHAV", argument, max);
        String[] w = argument.split(" ", -1);
        if (w.length != 3) {
            throw new IllegalArgumentException("FHAV: " + w.length + " fields (expected: 3, <manifest> <file-index>"
                    + " <from>-<to>[,<from>-<to>...])");
        }
        Manifest.requireDigest(w[0]);
        int file = (int) number("file index", w[1], 0, Integer.MAX_VALUE);
        String[] parts = w[2].split(",", -1);
        if (parts.length > ExtensionLimits.MAX_RANGES_PER_LINE) {
            throw new IllegalArgumentException("ranges: " + parts.length + " (expected: <= "
                    + ExtensionLimits.MAX_RANGES_PER_LINE + " per line)");
        }
        List<ByteRange> ranges = new ArrayList<>(parts.length);
        for (String p : parts) {
            int dash = p.indexOf('-');
            if (dash < 0) {
                throw new IllegalArgumentException("range: '" + shorten(p) + "' (expected: <from>-<to>)");
            }
            ranges.add(new ByteRange(number("from", p.substring(0, dash), 0, Long.MAX_VALUE),
                    number("to", p.substring(dash + 1), 0, Long.MAX_VALUE)));
        }
        HeldRanges h = new HeldRanges(w[0], file, ranges);
        canonical(argument, format(h));
        return h;
    }

    private static Announcement transfer(String[] w) {
        if (w.length < 2 + TRANSFER_FIELDS.length) {
            throw new IllegalArgumentException("FSP: " + (w.length - 1) + " fields (expected: >= " + (1 + TRANSFER_FIELDS.length)
                    + ", <id> kind= files= directories= bytes= blocks= <options>)");
        }
        if (w.length - 2 - TRANSFER_FIELDS.length > ExtensionLimits.MAX_OPTIONS) {
            throw new IllegalArgumentException("options: " + (w.length - 2 - TRANSFER_FIELDS.length) + " (expected: <= "
                    + ExtensionLimits.MAX_OPTIONS + ")");
        }
        TransferId id;
        try {
            id = TransferId.parse(w[1]);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("transfer id: '" + shorten(w[1]) + "' (expected: 16 hex digits)", e);
        }
        String[] v = new String[TRANSFER_FIELDS.length];
        for (int i = 0; i < TRANSFER_FIELDS.length; i++) {
            String word = w[2 + i];
            if (!word.startsWith(TRANSFER_FIELDS[i] + "=")) {
                throw new IllegalArgumentException("FSP field " + (2 + i) + ": '" + shorten(word) + "' (expected: "
                        + TRANSFER_FIELDS[i] + "=...)");
            }
            v[i] = word.substring(TRANSFER_FIELDS[i].length() + 1);
        }
        if (!v[0].equals("file") && !v[0].equals("directory")) {
            throw new IllegalArgumentException("kind: '" + shorten(v[0]) + "' (expected: file or directory)");
        }
        FspOptions options = FspOptions.NONE;
        for (int i = 2 + TRANSFER_FIELDS.length; i < w.length; i++) {
            int eq = w[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("option: '" + shorten(w[i]) + "' (expected: key=value)");
            }
            String key = w[i].substring(0, eq);
            // an option this end does not know (a newer server's) is carried as it is, and nothing acts on it
            options = options.withText(FspOption.named(key).orElseGet(() -> FspOption.unknown(key)), w[i].substring(eq + 1));
        }
        return new Announcement.Transfer(id, v[0].equals("directory"), (int) number("files", v[1], 0, Integer.MAX_VALUE),
                (int) number("directories", v[2], 0, Integer.MAX_VALUE), number("bytes", v[3], 0, Long.MAX_VALUE),
                number("blocks", v[4], 0, ExtensionLimits.MAX_SEQUENCE + 1), options);
    }

    private static Announcement relay(String[] w) {
        fields(w, 3);
        int index = (int) number("relay index", w[1], 0, ExtensionLimits.MAX_RELAY_INDEX);
        HostPort hostPort = hostPort(w[2]);
        return new Announcement.Relay(index, hostPort.host(), hostPort.port(), Fingerprint.parse(w[3]));
    }

    private static HostPort hostPort(String text) {
        HostPort hostPort;
        try {
            hostPort = HostPort.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("relay address: '" + shorten(text) + "' (expected: <host>:<port>)");
        }
        number("relay port", Integer.toString(hostPort.port()), 1, 65535);
        return hostPort;
    }

    private static Announcement block(String[] w) {
        fields(w, 6);
        long seq = number("seq", w[1], 0, ExtensionLimits.MAX_SEQUENCE);
        Placement placement = placement(w[2]);
        int file = (int) number("file index", w[3], 0, Integer.MAX_VALUE);
        long offset = number("offset", w[4], 0, Long.MAX_VALUE - ExtensionLimits.MAX_BLOCK_LENGTH);
        int length = (int) number("length", w[5], 1, ExtensionLimits.MAX_BLOCK_LENGTH);
        Digest digest = null;
        if (!w[6].equals("-")) {
            try {
                digest = Digest.parse(w[6]);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("digest: '" + shorten(w[6]) + "' (expected: <algorithm>:<hex>, or - for"
                        + " a block the client holds): " + e.getMessage(), e);
            }
        }
        return new Announcement.Block(seq, placement, file, offset, length, digest);
    }

    private static Placement placement(String text) {
        switch (text) {
            case "direct":
                return Placement.DIRECT;
            case "origin":
                return Placement.ORIGIN;
            case "have":
                return Placement.HELD;
            default:
                break;
        }
        if (!text.startsWith("relay:")) {
            throw new IllegalArgumentException("placement: '" + shorten(text) + "' (expected: relay:I[,I...], direct,"
                    + " origin or have)");
        }
        String[] parts = text.substring("relay:".length()).split(",", -1);
        if (parts.length > ExtensionLimits.MAX_HOLDERS) {
            throw new IllegalArgumentException("relays: " + parts.length + " (expected: 1.." + ExtensionLimits.MAX_HOLDERS + ")");
        }
        List<Integer> holders = new ArrayList<>(parts.length);
        for (String p : parts) {
            holders.add((int) number("relay index", p, 0, ExtensionLimits.MAX_RELAY_INDEX));
        }
        return new Placement.Relays(holders);
    }

    private static void fields(String[] w, int expected) {
        if (w.length != expected + 1) {
            throw new IllegalArgumentException(w[0] + ": " + (w.length - 1) + " fields (expected: " + expected + ")");
        }
    }

    private static void canonical(String text, String formatted) {
        if (!text.equals(formatted)) {
            throw new IllegalArgumentException("'" + shorten(text) + "': not in canonical form (expected: '"
                    + shorten(formatted) + "')");
        }
    }

    private static void checkLength(String what, String text, int max) {
        if (text.length() > max) {
            throw new IllegalArgumentException(what + ": " + text.length() + " characters (expected: <= " + max + ")");
        }
    }

    /** A decimal number without sign in {@code min..max}. */
    private static long number(String field, String text, long min, long max) {
        if (text.isEmpty() || text.length() > 19 || !digits(text)) {
            throw new IllegalArgumentException(field + ": '" + shorten(text) + "' (expected: a decimal number)");
        }
        long n;
        try {
            n = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(field + ": " + text + " (expected: <= " + max + ")");
        }
        check(field, n, min, max);
        return n;
    }

    private static boolean digits(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** A decimal number, possibly negative (modification times before 1970). */
    private static long signed(String field, String text) {
        boolean negative = text.startsWith("-");
        long n = number(field, negative ? text.substring(1) : text, 0, Long.MAX_VALUE);
        return negative ? -n : n;
    }

    private static byte[] base64(String field, String text) {
        try {
            return Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(field + ": '" + shorten(text) + "' (expected: base64 or none)", e);
        }
    }

    static void check(String field, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(field + ": " + value + " (expected: " + min + ".." + max + ")");
        }
    }

    static void checkOption(String key, String value) {
        if (key.isEmpty() || key.length() > ExtensionLimits.MAX_OPTION_KEY || !key.matches("[a-z][a-z0-9-]*")) {
            throw new IllegalArgumentException("option key: '" + shorten(key) + "' (expected: 1.." + ExtensionLimits.MAX_OPTION_KEY
                    + " of a-z, 0-9, -)");
        }
        if (value.isEmpty() || value.length() > ExtensionLimits.MAX_OPTION_VALUE
                || !value.chars().allMatch(c -> c > ' ' && c < 0x7f && c != '=')) {
            throw new IllegalArgumentException("option " + key + ": '" + shorten(value) + "' (expected: 1.."
                    + ExtensionLimits.MAX_OPTION_VALUE + " printable ASCII characters, no '=')");
        }
    }

    /** A REFUSED or STOPPED reason: an error code's name, {@code A-Z} and {@code _}. */
    static void checkReason(String reason) {
        if (reason == null || reason.isEmpty() || reason.length() > ExtensionLimits.MAX_REASON_LENGTH
                || !reason.matches("[A-Z][A-Z_]*")) {
            throw new IllegalArgumentException("reason: '" + shorten(String.valueOf(reason)) + "' (expected: 1.."
                    + ExtensionLimits.MAX_REASON_LENGTH + " of A-Z and _)");
        }
    }

    /** A REFUSED or STOPPED text: what a relay or a connection said, not empty, bounded. */
    static void checkText(String text) {
        if (text == null || text.isEmpty() || text.length() > ExtensionLimits.MAX_REASON_TEXT) {
            throw new IllegalArgumentException("text: " + (text == null ? "null" : text.length() + " characters")
                    + " (expected: 1.." + ExtensionLimits.MAX_REASON_TEXT + ")");
        }
    }

    static void checkHost(String host) {
        if (host == null || host.isEmpty() || host.length() > ExtensionLimits.MAX_HOST_LENGTH
                || !host.chars().allMatch(c -> c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                        || c == '.' || c == '-' || c == ':' || c == '%' || c == '_')) {
            throw new IllegalArgumentException("relay host: '" + shorten(host) + "' (expected: a name or address of 1.."
                    + ExtensionLimits.MAX_HOST_LENGTH + " characters)");
        }
    }

    /** At most 64 characters of {@code s}, for error messages. */
    static String shorten(String s) {
        return s == null ? "null" : s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}

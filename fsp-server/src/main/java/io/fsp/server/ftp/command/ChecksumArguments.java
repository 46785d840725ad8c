package io.fsp.server.ftp.command;

import io.fsp.server.ftp.FileRange;
import io.fsp.server.ftp.HashAlgorithm;
import java.util.Arrays;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The argument grammars of the checksum commands. Each parser returns the parsed value or throws
 * {@link IllegalArgumentException} with a message for a {@code 501} reply; numbers are decimal, at most 19
 * digits. The argument is bounded by the control channel's line limit.
 */
final class ChecksumArguments {
    private static final Pattern X_RANGE = Pattern.compile(" +(\\d{1,19}) +(\\d{1,19}) *");
    private static final Pattern CKSM = Pattern.compile("(\\S+) +(\\d{1,19}) +(-1|\\d{1,19}) (.+)");
    private static final Pattern RANG = Pattern.compile("(\\d{1,19}) +(\\d{1,19})");

    private ChecksumArguments() {
    }

    /** A path as the client sent it, and the range of the file to read. */
    record PathAndRange(String path, FileRange range) {
    }

    /**
     * XCRC, XMD5, XSHA1, XSHA256, XSHA512: {@code path} (the whole argument, blanks included), or
     * {@code "path"}, or {@code "path" start end} (GlobalSCAPE's and Serv-U's form; end exclusive, as ProFTPD
     * reads it). A range needs the quoted form, so a name that ends in numbers is never read as one. A quoted
     * path ends at the next quote (FileZilla's rule; quotes are not escaped).
     */
    static PathAndRange xChecksum(String argument) {
        if (!argument.startsWith("\"")) {
            return new PathAndRange(argument, FileRange.WHOLE);
        }
        int close = argument.indexOf('"', 1);
        if (close < 0) {
            throw new IllegalArgumentException("path: no closing quote (expected: \"PATH\" [START END])");
        }
        String path = argument.substring(1, close);
        if (path.isEmpty()) {
            throw new IllegalArgumentException("path: empty (expected: \"PATH\" [START END])");
        }
        String rest = argument.substring(close + 1);
        if (rest.isBlank()) {
            return new PathAndRange(path, FileRange.WHOLE);
        }
        Matcher m = X_RANGE.matcher(rest);
        if (!m.matches()) {
            throw new IllegalArgumentException("after the path: '" + rest.strip() + "' (expected: nothing, or START END)");
        }
        long start = number("start", m.group(1));
        long end = number("end", m.group(2));
        if (start >= end) {
            throw new IllegalArgumentException("range: " + start + " " + end + " (expected: START < END, END exclusive)");
        }
        return new PathAndRange(path, new FileRange(start, end - start));
    }

    /** GridFTP's CKSM: the algorithm, the range, and the path as the client sent it. */
    record Cksm(HashAlgorithm algorithm, FileRange range, String path) {
    }

    /**
     * {@code algorithm offset length path}: GridFTP's algorithm name (any case), offset >= 0, length >= 0 or
     * -1 for the rest of the file, and the path (everything after the single space that follows the length).
     */
    static Cksm cksm(String argument) {
        Matcher m = CKSM.matcher(argument);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + argument + "' (expected: ALGORITHM OFFSET LENGTH PATH)");
        }
        HashAlgorithm algorithm = HashAlgorithm.byGridFtpName(m.group(1)).orElseThrow(() ->
                new IllegalArgumentException("algorithm: " + m.group(1) + " (expected: one of " + gridFtpNames(", ") + ")"));
        long offset = number("offset", m.group(2));
        long length = m.group(3).equals("-1") ? FileRange.TO_END : number("length", m.group(3));
        if (length != FileRange.TO_END && offset > Long.MAX_VALUE - length) {
            throw new IllegalArgumentException("offset + length: " + offset + " + " + length
                    + " (expected: <= " + Long.MAX_VALUE + ")");
        }
        return new Cksm(algorithm, new FileRange(offset, length), m.group(4));
    }

    /**
     * RANG (draft-bryan-ftp-range §3): {@code start end}, the end inclusive; {@code 1 0} resets to the whole
     * file (empty). A start after the end is refused.
     */
    static Optional<FileRange> rang(String argument) {
        Matcher m = RANG.matcher(argument.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + argument + "' (expected: START END, or 1 0 to reset)");
        }
        long start = number("start", m.group(1));
        long end = number("end", m.group(2));
        if (start == 1 && end == 0) {
            return Optional.empty();
        }
        if (start > end || end == Long.MAX_VALUE) {
            throw new IllegalArgumentException("range: " + start + " " + end
                    + " (expected: START <= END < " + Long.MAX_VALUE + ", END inclusive; 1 0 resets)");
        }
        return Optional.of(new FileRange(start, end - start + 1));
    }

    /** The GridFTP names of the CKSM algorithms, sorted, for FEAT and error replies. */
    static String gridFtpNames(String separator) {
        return Arrays.stream(HashAlgorithm.values()).map(HashAlgorithm::gridFtpName).sorted()
                .collect(Collectors.joining(separator));
    }

    private static long number(String name, String digits) {
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": " + digits + " (expected: <= " + Long.MAX_VALUE + ")");
        }
    }
}

package io.fsp.block;

/**
 * The one rule for relative file names (in blocks, FILE, DIR and FPRI lines, manifests, and where the client writes
 * them): a relative, normalised path with {@code /} between segments, so a
 * receiver can join it to its target directory without escaping it. Rejected: empty names, a leading
 * {@code /}, a drive letter ({@code C:}), empty, {@code .} or {@code ..} segments, a trailing {@code /},
 * backslashes, NUL and other control characters, and unpaired surrogates (not encodable as UTF-8).
 */
public final class RelativePaths {
    private RelativePaths() {
    }

    /** Why {@code name} is unsafe, or {@code null} if it is safe: {@code name "…" is absolute (expected: …)}. */
    public static String problem(String name) {
        if (name.isEmpty()) {
            return "name is empty (expected: a relative path)";
        }
        String reason = reason(name);
        return reason == null ? null : "name \"" + printable(name) + "\" " + reason;
    }

    /**
     * Why {@code name} is unsafe, for a caller that names it itself ({@code is absolute (expected: a relative path)}),
     * or {@code null} if it is safe.
     */
    public static String reason(String name) {
        if (name.isEmpty()) {
            return "is empty (expected: a relative path)";
        }
        if (name.charAt(0) == '/') {
            return "is absolute (expected: a relative path)";
        }
        if (name.length() >= 2 && name.charAt(1) == ':' && isAsciiLetter(name.charAt(0))) {
            return "starts with a drive letter (expected: a relative path)";
        }
        int segmentStart = 0;
        for (int i = 0; i <= name.length(); i++) {
            char c = i < name.length() ? name.charAt(i) : '/';
            if (c == '/') {
                int len = i - segmentStart;
                if (len == 0 || (len == 1 && name.charAt(segmentStart) == '.')
                        || (len == 2 && name.charAt(segmentStart) == '.' && name.charAt(segmentStart + 1) == '.')) {
                    return "is not normalised (expected: no empty, . or .. segments)";
                }
                segmentStart = i + 1;
            } else if (c == '\\') {
                return "contains a backslash (expected: / between segments)";
            } else if (c < 0x20 || c == 0x7f) {
                return "contains control character " + (int) c + " (expected: none)";
            } else if (Character.isHighSurrogate(c)) {
                if (i + 1 >= name.length() || !Character.isLowSurrogate(name.charAt(i + 1))) {
                    return "contains an unpaired surrogate (expected: valid UTF-16)";
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return "contains an unpaired surrogate (expected: valid UTF-16)";
            }
        }
        return null;
    }

    /** Returns {@code name} if safe, else throws {@link IllegalArgumentException}. */
    public static String requireSafe(String name) {
        String problem = problem(name);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return name;
    }

    private static boolean isAsciiLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    /** The name for an error message: control characters escaped, cut at 200 characters. */
    static String printable(String name) {
        StringBuilder sb = new StringBuilder(Math.min(name.length(), 200) + 8);
        for (int i = 0; i < name.length() && i < 200; i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c == 0x7f || Character.isSurrogate(c)) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        if (name.length() > 200) {
            sb.append('…');
        }
        return sb.toString();
    }
}

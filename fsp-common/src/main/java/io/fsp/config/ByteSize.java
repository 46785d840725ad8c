package io.fsp.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A number of bytes as configured: {@code 1048576}, {@code 64K}, {@code 512M}, {@code 2G}, {@code 1T}, in binary
 * multiples ({@code KiB}, {@code MB}, lower case too); printed in the largest unit that divides it.
 */
public record ByteSize(long bytes) {
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgt]?)(i?b)?");
    private static final String UNITS = "KMGT";

    public ByteSize {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes: " + bytes + " (expected: >= 0)");
        }
    }

    public static ByteSize ofMebibytes(long n) {
        return new ByteSize(n << 20);
    }

    public static ByteSize parse(String text) {
        Matcher m = SIZE.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' (expected: a size such as 1048576, 64K, 512M, 2G)");
        }
        int shift = m.group(2).isEmpty() ? 0 : 10 * (UNITS.indexOf(m.group(2).toUpperCase(Locale.ROOT)) + 1);
        try {
            long n = Long.parseLong(m.group(1));
            if (n > (Long.MAX_VALUE >> shift)) {
                throw new NumberFormatException();
            }
            return new ByteSize(n << shift);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' (expected: a size below 8192P)");
        }
    }

    @Override
    public String toString() {
        for (int i = UNITS.length() - 1; i >= 0; i--) {
            long unit = 1L << (10 * (i + 1));
            if (bytes != 0 && bytes % unit == 0) {
                return bytes / unit + UNITS.substring(i, i + 1);
            }
        }
        return Long.toString(bytes);
    }
}

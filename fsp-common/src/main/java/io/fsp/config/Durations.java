package io.fsp.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as FSP writes them, the one parser and printer of each form: {@link #parse} for configuration files and
 * options ({@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 7d}, ISO-8601 {@code PT30S}), {@link #parseWhole}
 * for the compact form the FSP extension and {@code fsp evacuate} take (digits and {@code s}, {@code m}, {@code h} or
 * {@code d}), and {@link #format} for printing one in that compact form.
 */
public final class Durations {
    private static final Pattern CONFIG = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");
    /** At most nine digits: 999999999d is far beyond any use and still fits a {@link Duration}. */
    private static final Pattern WHOLE = Pattern.compile("([0-9]{1,9})([smhd])");

    private Durations() {
    }

    /** {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d} (any case, blanks around), or ISO-8601 ({@code PT30S}). */
    public static Duration parse(String text) {
        Matcher m = CONFIG.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (m.matches()) {
            try {
                return of(Long.parseLong(m.group(1)), m.group(2));
            } catch (ArithmeticException | NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "' (expected: a duration below 292 billion years)");
            }
        }
        try {
            return Duration.parse(text.strip());
        } catch (java.time.format.DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' (expected: a duration such as 500ms, 30s, 5m, 2h, 7d)");
        }
    }

    /**
     * The compact form, exactly as written: one to nine digits and {@code s}, {@code m}, {@code h} or {@code d}, lower
     * case, nothing around ({@code 90m}, {@code 7d}; {@code 0s} too: callers that want more say so).
     */
    public static Duration parseWhole(String text) {
        Matcher m = WHOLE.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' (expected: digits and s, m, h or d, e.g. 20m or 7d)");
        }
        return of(Long.parseLong(m.group(1)), m.group(2));
    }

    /** {@code d} in the largest of days, hours, minutes or seconds that holds it whole: {@code 7d}, {@code 90m}, {@code 0s}. */
    public static String format(Duration d) {
        long s = d.getSeconds();
        if (s != 0 && s % 86_400 == 0) {
            return s / 86_400 + "d";
        }
        if (s != 0 && s % 3600 == 0) {
            return s / 3600 + "h";
        }
        if (s != 0 && s % 60 == 0) {
            return s / 60 + "m";
        }
        return s + "s";
    }

    private static Duration of(long n, String unit) {
        return switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }

    /** {@code d}, refused unless it is longer than zero, in the words of configuration checks. */
    public static Duration requirePositive(String name, Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + ": " + d + " (expected: > 0)");
        }
        return d;
    }
}

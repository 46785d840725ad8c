package io.fsp.server.stripe;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.extension.ExtensionLimits;
import java.time.Duration;
import java.util.Locale;

/**
 * The knobs of a striped transfer, set with {@code FSPO key=value …} (docs/protocol.md §1, FSP extension).
 *
 * @param blockSize plaintext bytes per block (4 KiB .. 16 MiB)
 * @param compressionLevel zstd level, 0 for no compression
 * @param cipherBits AES-GCM key size (128 or 256), 0 for clear blocks
 * @param checksum the per-block wire checksum
 * @param digest the end-to-end digest of each block's plaintext, announced on the control channel
 * @param strategy how blocks are spread over the targets
 * @param includeDirect whether the client's data connection is a target beside the relays
 * @param streams parallel fetches the client may run per relay (advisory for the server)
 * @param useRelays stripe over the relay list; off with include-direct sends every block on the data connection
 * @param replicas on how many relays each relay-placed block is stored (1..3), so that a client can fetch a
 *                 block from another relay when one fails or goes away, without going back to the origin
 * @param retain how long relays keep the transfer for a collector that comes later ({@link Duration#ZERO}: off);
 *               a transfer with it is an evacuation, which outlives its control connection
 */
public record StripeOptions(int blockSize, int compressionLevel, int cipherBits, ChecksumAlgorithm checksum,
                            ChecksumAlgorithm digest, DistributionStrategy strategy, boolean includeDirect, int streams, boolean useRelays,
                            int replicas, Duration retain) {
    public static final int MIN_BLOCK_SIZE = 4 * 1024;
    /** The largest block the FSP extension announces. */
    public static final int MAX_BLOCK_SIZE = ExtensionLimits.MAX_BLOCK_LENGTH;
    public static final StripeOptions DEFAULTS = new StripeOptions(1024 * 1024, 0, 256, ChecksumAlgorithm.CRC32C,
            ChecksumAlgorithm.SHA256, DistributionStrategy.FCFS, false, 4, true, 1, Duration.ZERO);
    /** The most relays a block announcement names. */
    public static final int MAX_REPLICAS = ExtensionLimits.MAX_HOLDERS;
    /** The shortest retention: an evacuation is over in minutes at the least. */
    public static final Duration MIN_RETAIN = Duration.ofMinutes(1);

    public StripeOptions {
        if (blockSize < MIN_BLOCK_SIZE || blockSize > MAX_BLOCK_SIZE) {
            throw new IllegalArgumentException("block-size: " + blockSize + " (expected: " + MIN_BLOCK_SIZE + ".."
                    + MAX_BLOCK_SIZE + ")");
        }
        if (compressionLevel < 0 || compressionLevel > 19) {
            throw new IllegalArgumentException("compression: " + compressionLevel + " (expected: off or 1..19)");
        }
        if (cipherBits != 0 && cipherBits != 128 && cipherBits != 256) {
            throw new IllegalArgumentException("cipher bits: " + cipherBits + " (expected: 0, 128 or 256)");
        }
        if (streams < 1 || streams > 64) {
            throw new IllegalArgumentException("streams: " + streams + " (expected: 1..64)");
        }
        if (replicas < 1 || replicas > MAX_REPLICAS) {
            throw new IllegalArgumentException("replicas: " + replicas + " (expected: 1.." + MAX_REPLICAS + ")");
        }
        if (retain.isNegative() || !retain.isZero() && retain.compareTo(MIN_RETAIN) < 0) {
            throw new IllegalArgumentException("retain: " + formatDuration(retain) + " (expected: off or at least "
                    + formatDuration(MIN_RETAIN) + ")");
        }
    }

    /** Whether a FRET with these options is an evacuation: {@code retain} is set. */
    public boolean evacuation() {
        return !retain.isZero();
    }

    /**
     * Throws {@link IllegalArgumentException} naming the value and the range if {@code retain} is longer than
     * {@code maxRetain} (the server's {@code max-retain}).
     */
    public void requireRetainAtMost(Duration maxRetain) {
        if (retain.compareTo(maxRetain) > 0) {
            throw new IllegalArgumentException("retain: " + formatDuration(retain) + " (expected: off or "
                    + formatDuration(MIN_RETAIN) + ".." + formatDuration(maxRetain) + ", the server's max-retain)");
        }
    }

    /** This with {@code key} set to {@code value}; throws {@link IllegalArgumentException} naming the problem. */
    public StripeOptions with(String key, String value) {
        String v = value.toLowerCase(Locale.ROOT);
        return switch (key.toLowerCase(Locale.ROOT)) {
            case "block-size" -> new StripeOptions(parseSize(key, v), compressionLevel, cipherBits, checksum, digest, strategy,
                    includeDirect, streams, useRelays, replicas, retain);
            case "compression" -> new StripeOptions(blockSize, parseCompression(v), cipherBits, checksum, digest, strategy,
                    includeDirect, streams, useRelays, replicas, retain);
            case "cipher" -> new StripeOptions(blockSize, compressionLevel, parseCipher(v), checksum, digest, strategy,
                    includeDirect, streams, useRelays, replicas, retain);
            case "checksum" -> new StripeOptions(blockSize, compressionLevel, cipherBits, ChecksumAlgorithm.fromLabel(v), digest,
                    strategy, includeDirect, streams, useRelays, replicas, retain);
            case "digest" -> new StripeOptions(blockSize, compressionLevel, cipherBits, checksum, ChecksumAlgorithm.fromLabel(v),
                    strategy, includeDirect, streams, useRelays, replicas, retain);
            case "strategy" -> new StripeOptions(blockSize, compressionLevel, cipherBits, checksum, digest,
                    DistributionStrategy.parse(v), includeDirect, streams, useRelays, replicas, retain);
            case "include-direct" -> new StripeOptions(blockSize, compressionLevel, cipherBits, checksum, digest, strategy,
                    parseBoolean(key, v), streams, useRelays, replicas, retain);
            case "streams" -> new StripeOptions(blockSize, compressionLevel, cipherBits, checksum, digest, strategy,
                    includeDirect, parseInt(key, v), useRelays, replicas, retain);
            case "use-relays" -> new StripeOptions(blockSize, compressionLevel, cipherBits, checksum, digest, strategy,
                    includeDirect, streams, parseBoolean(key, v), replicas, retain);
            case "replicas" -> new StripeOptions(blockSize, compressionLevel, cipherBits, checksum, digest, strategy,
                    includeDirect, streams, useRelays, parseInt(key, v), retain);
            case "retain" -> new StripeOptions(blockSize, compressionLevel, cipherBits, checksum, digest, strategy,
                    includeDirect, streams, useRelays, replicas, parseRetain(v));
            default -> throw new IllegalArgumentException("option: " + key + " (expected: one of " + String.join(", ", KEYS) + ")");
        };
    }

    public static final String[] KEYS = {"block-size", "compression", "cipher", "checksum", "digest", "strategy",
        "include-direct", "streams", "use-relays", "replicas", "retain"};

    public String cipherName() {
        return cipherBits == 0 ? "none" : "aes-" + cipherBits + "-gcm";
    }

    /** The options as {@code key=value} words, as FSPO answers and FRET announces them. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        asMap().forEach((k, v) -> sb.append(sb.length() == 0 ? "" : " ").append(k).append('=').append(v));
        return sb.toString();
    }

    /** Every option as FSPO takes it, in a fixed order: what FSPO shows and the FSP announcement carries. */
    public java.util.Map<String, String> asMap() {
        java.util.Map<String, String> m = new java.util.LinkedHashMap<>();
        m.put("block-size", String.valueOf(blockSize));
        m.put("compression", compressionLevel == 0 ? "off" : String.valueOf(compressionLevel));
        m.put("cipher", cipherName());
        m.put("checksum", checksum.label());
        m.put("digest", digest.label());
        m.put("strategy", strategy.cliName());
        m.put("include-direct", includeDirect ? "on" : "off");
        m.put("streams", String.valueOf(streams));
        m.put("use-relays", useRelays ? "on" : "off");
        m.put("replicas", String.valueOf(replicas));
        m.put("retain", retain.isZero() ? "off" : formatDuration(retain));
        return m;
    }

    static int parseSize(String key, String v) {
        long factor = 1;
        String digits = v;
        if (v.endsWith("k") || v.endsWith("kib")) {
            factor = 1024;
            digits = v.substring(0, v.indexOf('k'));
        } else if (v.endsWith("m") || v.endsWith("mib")) {
            factor = 1024 * 1024;
            digits = v.substring(0, v.indexOf('m'));
        }
        long n = parseInt(key, digits) * factor;
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(key + ": " + v + " (expected: <= " + MAX_BLOCK_SIZE + ")");
        }
        return (int) n;
    }

    /** {@code off}, or digits with {@code s}, {@code m}, {@code h} or {@code d}: {@code 90m}, {@code 7d}. */
    private static Duration parseRetain(String v) {
        if (v.equals("off")) {
            return Duration.ZERO;
        }
        char unit = v.isEmpty() ? ' ' : v.charAt(v.length() - 1);
        String digits = v.isEmpty() ? "" : v.substring(0, v.length() - 1);
        if (digits.isEmpty() || digits.length() > 9 || !digits.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException("retain: " + v + " (expected: off or a duration such as 90m or 7d)");
        }
        long n = Long.parseLong(digits);
        if (n == 0) { // not a way to say off
            throw new IllegalArgumentException("retain: " + v + " (expected: off or at least " + formatDuration(MIN_RETAIN) + ")");
        }
        return switch (unit) {
            case 's' -> Duration.ofSeconds(n);
            case 'm' -> Duration.ofMinutes(n);
            case 'h' -> Duration.ofHours(n);
            case 'd' -> Duration.ofDays(n);
            default -> throw new IllegalArgumentException("retain: " + v + " (expected: off or a duration such as 90m or 7d)");
        };
    }

    /** {@code d} in the largest of days, hours, minutes or seconds that holds it whole: {@code 7d}, {@code 90m}. */
    public static String formatDuration(Duration d) {
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

    private static int parseCompression(String v) {
        return switch (v) {
            case "off", "none", "0" -> 0;
            case "on", "zstd" -> 3;
            default -> parseInt("compression", v.startsWith("zstd:") ? v.substring(5) : v);
        };
    }

    private static int parseCipher(String v) {
        return switch (v) {
            case "none", "off" -> 0;
            case "aes-128-gcm", "aes128" -> 128;
            case "aes-256-gcm", "aes256", "aes" -> 256;
            default -> throw new IllegalArgumentException("cipher: " + v + " (expected: aes-256-gcm, aes-128-gcm or none)");
        };
    }

    private static boolean parseBoolean(String key, String v) {
        return switch (v) {
            case "on", "true", "yes", "1" -> true;
            case "off", "false", "no", "0" -> false;
            default -> throw new IllegalArgumentException(key + ": " + v + " (expected: on or off)");
        };
    }

    private static int parseInt(String key, String v) {
        if (v.isEmpty() || v.length() > 10 || !v.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException(key + ": " + v + " (expected: a number)");
        }
        long n = Long.parseLong(v);
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(key + ": " + v + " (expected: <= " + Integer.MAX_VALUE + ")");
        }
        return (int) n;
    }
}

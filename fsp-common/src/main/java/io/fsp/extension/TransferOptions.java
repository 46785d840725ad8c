package io.fsp.extension;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.config.ByteSize;
import io.fsp.config.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The knobs of a striped transfer, set with {@code FSPO key=value …} (docs/protocol.md §1, FSP extension): the one
 * parse of each value ({@link #with(String, String)}, with the limits and the {@code key: value (expected: …)}
 * errors the server answers with), the one form the server shows them in ({@link #describe()}), and the
 * {@link Request} a client sends.
 *
 * @param blockSize plaintext bytes per block (4 KiB .. 16 MiB), or {@link #AUTO_BLOCK_SIZE}: the server picks it for
 *                  each transfer by its size (docs/protocol.md §1, {@code block-size})
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
 * @param probe a dry run of an evacuation: the transfer is opened and pushed as the evacuation would be, and aborted
 *              at the relays when it ends; only with {@code retain} ({@link #requireProbeWithRetain()})
 */
public record TransferOptions(int blockSize, int compressionLevel, int cipherBits, ChecksumAlgorithm checksum,
                            ChecksumAlgorithm digest, DistributionStrategy strategy, boolean includeDirect, int streams, boolean useRelays,
                            int replicas, Duration retain, boolean probe) {
    public static final int MIN_BLOCK_SIZE = 4 * 1024;
    /** The largest block the FSP extension announces. */
    public static final int MAX_BLOCK_SIZE = ExtensionLimits.MAX_BLOCK_LENGTH;
    /** {@code block-size=auto}, the default: the server sizes each transfer's blocks by the transfer. */
    public static final int AUTO_BLOCK_SIZE = 0;
    public static final TransferOptions DEFAULTS = new TransferOptions(AUTO_BLOCK_SIZE, 0, 256, ChecksumAlgorithm.CRC32C,
            ChecksumAlgorithm.SHA256, DistributionStrategy.FCFS, false, 4, true, 1, Duration.ZERO, false);
    /** The most relays a block announcement names. */
    public static final int MAX_REPLICAS = ExtensionLimits.MAX_HOLDERS;
    /** The shortest retention: an evacuation is over in minutes at the least. */
    public static final Duration MIN_RETAIN = Duration.ofMinutes(1);

    public TransferOptions {
        if (blockSize != AUTO_BLOCK_SIZE && (blockSize < MIN_BLOCK_SIZE || blockSize > MAX_BLOCK_SIZE)) {
            throw new IllegalArgumentException("block-size: " + blockSize + " (expected: auto or " + MIN_BLOCK_SIZE + ".."
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

    /** Whether the server picks the block size by the transfer ({@code block-size=auto}). */
    public boolean automaticBlockSize() {
        return blockSize == AUTO_BLOCK_SIZE;
    }

    /** These options with blocks of {@code size} bytes. */
    public TransferOptions withBlockSize(int size) {
        return new TransferOptions(size, compressionLevel, cipherBits, checksum, digest, strategy, includeDirect, streams,
                useRelays, replicas, retain, probe);
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

    /**
     * Throws {@link IllegalArgumentException} if {@code probe=on} without {@code retain}: a probe is a dry run of an
     * evacuation. Checked once all pairs of an FSPO are set, so that their order does not matter.
     */
    public void requireProbeWithRetain() {
        if (probe && !evacuation()) {
            throw new IllegalArgumentException("probe: on (expected: only with retain=DURATION: a probe is a dry run"
                    + " of an evacuation)");
        }
    }

    /** This with {@code key} set to {@code value}; throws {@link IllegalArgumentException} naming the problem. */
    public TransferOptions with(String key, String value) {
        return new Builder(this).set(key, value.toLowerCase(Locale.ROOT)).build();
    }

    public static final String[] KEYS = {"block-size", "compression", "cipher", "checksum", "digest", "strategy",
        "include-direct", "streams", "use-relays", "replicas", "retain", "probe"};

    public String cipherName() {
        return cipherBits == 0 ? "none" : "aes-" + cipherBits + "-gcm";
    }

    /** The options as {@code key=value} words, as FSPO answers and FRET announces them. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        asMap().forEach((k, v) -> sb.append(sb.length() == 0 ? "" : " ").append(k).append('=').append(v));
        return sb.toString();
    }

    /**
     * Every option as FSPO takes it, in a fixed order: what FSPO shows and the FSP announcement carries; {@code probe}
     * only when on.
     */
    public Map<String, String> asMap() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("block-size", automaticBlockSize() ? "auto" : String.valueOf(blockSize));
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
        if (probe) {
            m.put("probe", "on");
        }
        return m;
    }

    /** A size as {@link ByteSize} reads it ({@code 1048576}, {@code 64k}, {@code 4m}, {@code 4mib}), at most an int. */
    static int parseSize(String key, String v) {
        long n;
        try {
            n = ByteSize.parse(v).bytes();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + ": " + v + " (expected: a number)");
        }
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(key + ": " + v + " (expected: <= " + MAX_BLOCK_SIZE + ")");
        }
        return (int) n;
    }

    /** A size given as a number: 0 is not a way to say {@code auto}. */
    private static int givenBlockSize(int n) {
        if (n == AUTO_BLOCK_SIZE) {
            throw new IllegalArgumentException("block-size: 0 (expected: auto or " + MIN_BLOCK_SIZE + ".." + MAX_BLOCK_SIZE + ")");
        }
        return n;
    }

    /** {@code off}, or a duration in {@link Durations#parseWhole}'s form: {@code 90m}, {@code 7d}. */
    private static Duration parseRetain(String v) {
        if (v.equals("off")) {
            return Duration.ZERO;
        }
        Duration d;
        try {
            d = Durations.parseWhole(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("retain: " + v + " (expected: off or a duration such as 90m or 7d)");
        }
        if (d.isZero()) { // not a way to say off
            throw new IllegalArgumentException("retain: " + v + " (expected: off or at least " + formatDuration(MIN_RETAIN) + ")");
        }
        return d;
    }

    /** {@link Durations#format}: the form FSPO shows a duration in ({@code 7d}, {@code 90m}). */
    public static String formatDuration(Duration d) {
        return Durations.format(d);
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

    /** The options one pair at a time, built once at the end: the record's checks run on the whole. */
    private static final class Builder {
        private int blockSize;
        private int compressionLevel;
        private int cipherBits;
        private ChecksumAlgorithm checksum;
        private ChecksumAlgorithm digest;
        private DistributionStrategy strategy;
        private boolean includeDirect;
        private int streams;
        private boolean useRelays;
        private int replicas;
        private Duration retain;
        private boolean probe;

        Builder(TransferOptions o) {
            blockSize = o.blockSize;
            compressionLevel = o.compressionLevel;
            cipherBits = o.cipherBits;
            checksum = o.checksum;
            digest = o.digest;
            strategy = o.strategy;
            includeDirect = o.includeDirect;
            streams = o.streams;
            useRelays = o.useRelays;
            replicas = o.replicas;
            retain = o.retain;
            probe = o.probe;
        }

        /** Sets {@code key} from {@code v} (lower case), checking it as far as it goes alone. */
        Builder set(String key, String v) {
            switch (key.toLowerCase(Locale.ROOT)) {
                case "block-size" -> blockSize = v.equals("auto") ? AUTO_BLOCK_SIZE : givenBlockSize(parseSize(key, v));
                case "compression" -> compressionLevel = parseCompression(v);
                case "cipher" -> cipherBits = parseCipher(v);
                case "checksum" -> checksum = ChecksumAlgorithm.fromLabel(v);
                case "digest" -> digest = ChecksumAlgorithm.fromLabel(v);
                case "strategy" -> strategy = DistributionStrategy.parse(v);
                case "include-direct" -> includeDirect = parseBoolean(key, v);
                case "streams" -> streams = parseInt(key, v);
                case "use-relays" -> useRelays = parseBoolean(key, v);
                case "replicas" -> replicas = parseInt(key, v);
                case "retain" -> retain = parseRetain(v);
                case "probe" -> probe = parseBoolean(key, v);
                default -> throw new IllegalArgumentException("option: " + key + " (expected: one of " + String.join(", ", KEYS) + ")");
            }
            // each pair is checked as it is set, as if the record were made after each one
            build();
            return this;
        }

        TransferOptions build() {
            return new TransferOptions(blockSize, compressionLevel, cipherBits, checksum, digest, strategy, includeDirect,
                    streams, useRelays, replicas, retain, probe);
        }
    }

    /**
     * What a client asks with one {@code FSPO}: {@code key=value} pairs in the order given, each value as given (the
     * server parses it), formatted as the one command line {@link #command()}; the server reads its argument back with
     * {@link #parse(String)}. Keys are those of {@link TransferOptions#KEYS} and {@link #SELECTION_KEYS}.
     */
    public record Request(List<Pair> pairs) {
        /** Most pairs one FSPO takes. */
        public static final int MAX_PAIRS = 16;
        /** Keys of the relay selection by RTT, which the server parses apart from the stripe options. */
        public static final List<String> SELECTION_KEYS = List.of("near-sender", "near-client", "relays", "client-probe",
                "meridian-entry");
        public static final Request NONE = new Request(List.of());

        /** One {@code key=value}: the key not empty, neither with a blank, the key without '='. */
        public record Pair(String key, String value) {
            public Pair {
                if (key.isEmpty() || !key.chars().allMatch(Request::isWordChar) || !value.chars().allMatch(Request::isWordChar)
                        || key.indexOf('=') >= 0) {
                    throw new IllegalArgumentException("option: '" + key + "=" + value + "' (expected: key=value)");
                }
            }

            @Override
            public String toString() {
                return key + "=" + value;
            }
        }

        public Request {
            if (pairs.size() > MAX_PAIRS) {
                throw new IllegalArgumentException("options: " + pairs.size() + " (expected: <= " + MAX_PAIRS + ")");
            }
            pairs = List.copyOf(pairs);
        }

        /** The argument of an FSPO: at most {@link #MAX_PAIRS} {@code key=value} words, separated by blanks. */
        public static Request parse(String argument) {
            String trimmed = argument.trim();
            return trimmed.isEmpty() ? NONE : of(List.of(trimmed.split("\\s+")));
        }

        /** {@code key=value} words, in order. */
        public static Request of(List<String> words) {
            if (words.size() > MAX_PAIRS) { // before any word is looked at
                throw new IllegalArgumentException("options: " + words.size() + " (expected: <= " + MAX_PAIRS + ")");
            }
            List<Pair> pairs = new ArrayList<>(words.size());
            for (String w : words) {
                int eq = w.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("option: '" + w + "' (expected: key=value)");
                }
                pairs.add(new Pair(w.substring(0, eq), w.substring(eq + 1)));
            }
            return new Request(pairs);
        }

        public static boolean isSelectionKey(String key) {
            return SELECTION_KEYS.contains(key.toLowerCase(Locale.ROOT));
        }

        /** This and then {@code key=value}. */
        public Request with(String key, String value) {
            List<Pair> more = new ArrayList<>(pairs);
            more.add(new Pair(key, value));
            return new Request(more);
        }

        /** This and then {@code key=on} or {@code key=off}. */
        public Request with(String key, boolean on) {
            return with(key, on ? "on" : "off");
        }

        /** This and then the pairs of {@code more}. */
        public Request with(Request more) {
            List<Pair> all = new ArrayList<>(pairs);
            all.addAll(more.pairs);
            return new Request(all);
        }

        public boolean isEmpty() {
            return pairs.isEmpty();
        }

        /** The pairs as {@code key=value} words. */
        public List<String> words() {
            return pairs.stream().map(Pair::toString).toList();
        }

        /** The command: {@code FSPO key=value …}. */
        public String command() {
            return pairs.isEmpty() ? "FSPO" : "FSPO " + String.join(" ", words());
        }

        /** Not a blank as FSPO's argument is split on ({@code \\s}). */
        private static boolean isWordChar(int c) {
            return c != ' ' && c != '\t' && c != '\n' && c != 0x0b && c != '\f' && c != '\r';
        }
    }
}

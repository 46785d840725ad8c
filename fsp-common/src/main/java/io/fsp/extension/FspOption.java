package io.fsp.extension;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.config.ByteSize;
import io.fsp.config.Durations;
import io.fsp.meridian.wire.Constraint;
import io.fsp.net.HostPort;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * One option of {@code FSPO key=value} (docs/protocol.md §1, the FSPO table), declared once: its wire name, the one
 * parse of its value (bounds checked, refused with the {@code key: value (expected: …)} text the server answers
 * {@code 501} with), the one form it is written in, and its default. The server reads FSPO with these keys
 * ({@link TransferOptions}, {@link SelectionRequest}), the client writes its requests with them ({@link FspOptions}),
 * and both read the FSP announcement with them. Transfer options hold a value in every {@link TransferOptions};
 * selection options (relays by RTT) are unset unless given.
 *
 * @param <T> the value's type
 */
public final class FspOption<T> {
    /** The smallest block a client may ask for. */
    public static final int MIN_BLOCK_SIZE = 4 * 1024;
    /** The largest block the FSP extension announces. */
    public static final int MAX_BLOCK_SIZE = ExtensionLimits.MAX_BLOCK_LENGTH;
    /** {@code block-size=auto}, the default: the server sizes each transfer's blocks by the transfer. */
    public static final int AUTO_BLOCK_SIZE = 0;
    /** The most relays a block is placed on (the most a block announcement names). */
    public static final int MAX_REPLICAS = ExtensionLimits.MAX_HOLDERS;
    /** The shortest retention: an evacuation is over in minutes at the least. */
    public static final Duration MIN_RETAIN = Duration.ofMinutes(1);
    /** The most relays a query by RTT may ask for. */
    public static final int MAX_RELAYS = 64;

    private static final List<FspOption<?>> ALL = new ArrayList<>();
    private static final List<FspOption<?>> TRANSFER = new ArrayList<>();

    // The transfer options, in the order FSPO shows them and the FSP line announces them.
    public static final FspOption<Integer> BLOCK_SIZE = transfer("block-size", AUTO_BLOCK_SIZE, FspOption::blockSize,
            b -> b == AUTO_BLOCK_SIZE ? "auto" : Integer.toString(b));
    public static final FspOption<Integer> COMPRESSION = transfer("compression", 0, FspOption::compression,
            c -> c == 0 ? "off" : Integer.toString(c));
    public static final FspOption<Integer> CIPHER = transfer("cipher", 256, FspOption::cipher,
            bits -> bits == 0 ? "none" : "aes-" + bits + "-gcm");
    public static final FspOption<ChecksumAlgorithm> CHECKSUM = transfer("checksum", ChecksumAlgorithm.CRC32C,
            ChecksumAlgorithm::fromLabel, ChecksumAlgorithm::label);
    public static final FspOption<ChecksumAlgorithm> DIGEST = transfer("digest", ChecksumAlgorithm.SHA256,
            ChecksumAlgorithm::fromLabel, ChecksumAlgorithm::label);
    public static final FspOption<DistributionStrategy> STRATEGY = transfer("strategy", DistributionStrategy.FCFS,
            DistributionStrategy::parse, DistributionStrategy::cliName);
    public static final FspOption<Boolean> INCLUDE_DIRECT = onOff("include-direct", false);
    public static final FspOption<Integer> STREAMS = transfer("streams", 4, v -> range("streams", v, 1, 64),
            String::valueOf);
    public static final FspOption<Boolean> USE_RELAYS = onOff("use-relays", true);
    public static final FspOption<Integer> REPLICAS = transfer("replicas", 1, v -> range("replicas", v, 1, MAX_REPLICAS),
            String::valueOf);
    public static final FspOption<Duration> RETAIN = transfer("retain", Duration.ZERO, FspOption::retain,
            d -> d.isZero() ? "off" : Durations.format(d));
    /** Shown by FSPO and the FSP line only when on. */
    public static final FspOption<Boolean> PROBE = onOff("probe", false);

    // The relay selection by RTT (docs/protocol.md §4), which the server keeps apart from the transfer options.
    public static final FspOption<Double> NEAR_SENDER = selection("near-sender", v -> millis("near-sender", v),
            FspOption::formatMillis);
    public static final FspOption<Double> NEAR_CLIENT = selection("near-client", v -> millis("near-client", v),
            FspOption::formatMillis);
    public static final FspOption<Integer> RELAYS = selection("relays", v -> atLeastOne("relays", v, MAX_RELAYS),
            String::valueOf);
    public static final FspOption<Integer> CLIENT_PROBE = selection("client-probe",
            v -> atLeastOne("client-probe", v, 65535), String::valueOf);
    public static final FspOption<InetSocketAddress> MERIDIAN_ENTRY = selection("meridian-entry", FspOption::entry,
            HostPort::format);

    private final String name;
    private final T defaultValue;
    private final Function<String, T> parse;
    private final Function<T, String> format;
    /** The place of a transfer option's value in a {@link TransferOptions}; -1 for any other option. */
    private final int slot;

    private FspOption(String name, T defaultValue, Function<String, T> parse, Function<T, String> format, int slot) {
        this.name = name;
        this.defaultValue = defaultValue;
        this.parse = parse;
        this.format = format;
        this.slot = slot;
    }

    private static <T> FspOption<T> transfer(String name, T defaultValue, Function<String, T> parse,
                                             Function<T, String> format) {
        // a transfer option's value is read in lower case, as FSPO always has
        FspOption<T> o = new FspOption<>(name, defaultValue, v -> parse.apply(v.toLowerCase(Locale.ROOT)), format,
                TRANSFER.size());
        TRANSFER.add(o);
        ALL.add(o);
        return o;
    }

    private static FspOption<Boolean> onOff(String name, boolean defaultValue) {
        return transfer(name, defaultValue, v -> parseBoolean(name, v), on -> on ? "on" : "off");
    }

    private static <T> FspOption<T> selection(String name, Function<String, T> parse, Function<T, String> format) {
        FspOption<T> o = new FspOption<>(name, null, parse, format, -1);
        ALL.add(o);
        return o;
    }

    /**
     * An option this end does not know (a newer peer's), carried as its text: an FSP line may announce it, and
     * nothing here acts on it.
     */
    static FspOption<String> unknown(String name) {
        return new FspOption<>(name, null, v -> v, v -> v, -1);
    }

    /** Every option FSPO takes, transfer options first. */
    public static List<FspOption<?>> all() {
        return Collections.unmodifiableList(ALL);
    }

    /** The transfer options, in the order FSPO shows them. */
    public static List<FspOption<?>> transferOptions() {
        return Collections.unmodifiableList(TRANSFER);
    }

    /** The option named {@code name} (any case), if FSPO takes it. */
    public static Optional<FspOption<?>> named(String name) {
        String wanted = name.toLowerCase(Locale.ROOT);
        return ALL.stream().filter(o -> o.name.equals(wanted)).findFirst();
    }

    /** The name FSPO knows it by. */
    public String name() {
        return name;
    }

    /** The value when none is given; null for a selection option, which is then unset. */
    public T defaultValue() {
        return defaultValue;
    }

    /** Whether every {@link TransferOptions} holds a value of it (else it selects relays, or is unknown). */
    public boolean isTransferOption() {
        return slot >= 0;
    }

    int slot() {
        return slot;
    }

    /** The value {@code text} stands for; throws {@link IllegalArgumentException} naming the key, value and bounds. */
    public T parse(String text) {
        return parse.apply(text);
    }

    /** {@code value} as FSPO writes it: what {@link #parse} reads back to the same value. */
    public String format(T value) {
        return format.apply(value);
    }

    /** {@code value}, if it is within this option's bounds; else throws as {@link #parse} does. */
    public T check(T value) {
        T back = parse(format(value));
        if (!back.equals(value)) {
            throw new IllegalArgumentException(name + ": " + format(value) + " (expected: " + format(back) + ")");
        }
        return value;
    }

    /** {@code name=value}, as FSPO writes it. */
    public String pair(T value) {
        return name + "=" + format(value);
    }

    @Override
    public String toString() {
        return name;
    }

    private static int blockSize(String v) {
        if (v.equals("auto")) {
            return AUTO_BLOCK_SIZE;
        }
        long n;
        try {
            n = ByteSize.parse(v).bytes();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("block-size: " + v + " (expected: a number)");
        }
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("block-size: " + v + " (expected: <= " + MAX_BLOCK_SIZE + ")");
        }
        if (n < MIN_BLOCK_SIZE || n > MAX_BLOCK_SIZE) { // 0 is not a way to say auto
            throw new IllegalArgumentException("block-size: " + n + " (expected: auto or " + MIN_BLOCK_SIZE + ".."
                    + MAX_BLOCK_SIZE + ")");
        }
        return (int) n;
    }

    private static int compression(String v) {
        int level = switch (v) {
            case "off", "none", "0" -> 0;
            case "on", "zstd" -> 3;
            default -> parseInt("compression", v.startsWith("zstd:") ? v.substring(5) : v);
        };
        if (level > 19) {
            throw new IllegalArgumentException("compression: " + level + " (expected: off or 1..19)");
        }
        return level;
    }

    private static int cipher(String v) {
        return switch (v) {
            case "none", "off" -> 0;
            case "aes-128-gcm", "aes128" -> 128;
            case "aes-256-gcm", "aes256", "aes" -> 256;
            default -> throw new IllegalArgumentException("cipher: " + v + " (expected: aes-256-gcm, aes-128-gcm or none)");
        };
    }

    /** {@code off}, or a duration in {@link Durations#parseWhole}'s form ({@code 90m}, {@code 7d}) of at least a minute. */
    private static Duration retain(String v) {
        if (v.equals("off")) {
            return Duration.ZERO;
        }
        Duration d;
        try {
            d = Durations.parseWhole(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("retain: " + v + " (expected: off or a duration such as 90m or 7d)");
        }
        if (d.compareTo(MIN_RETAIN) < 0) { // zero is not a way to say off
            throw new IllegalArgumentException("retain: " + (d.isZero() ? v : Durations.format(d))
                    + " (expected: off or at least " + Durations.format(MIN_RETAIN) + ")");
        }
        return d;
    }

    private static boolean parseBoolean(String key, String v) {
        return switch (v) {
            case "on", "true", "yes", "1" -> true;
            case "off", "false", "no", "0" -> false;
            default -> throw new IllegalArgumentException(key + ": " + v + " (expected: on or off)");
        };
    }

    private static int range(String key, String v, int min, int max) {
        int n = parseInt(key, v);
        if (n < min || n > max) {
            throw new IllegalArgumentException(key + ": " + n + " (expected: " + min + ".." + max + ")");
        }
        return n;
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

    /** Milliseconds of RTT, {@code 0 < MS <= 60000}, as a query carries them (docs/protocol.md §4.2). */
    private static double millis(String key, String value) {
        if (value.isEmpty() || value.length() > 12 || !value.matches("[0-9]+(\\.[0-9]+)?")) {
            throw new IllegalArgumentException(key + ": " + value + " (expected: milliseconds, e.g. 40 or 12.5)");
        }
        double ms = Double.parseDouble(value);
        if (ms <= 0 || ms > Constraint.MAX_RTT_MS) {
            throw new IllegalArgumentException(key + ": " + value + " (expected: > 0 and <= " + (long) Constraint.MAX_RTT_MS
                    + " ms)");
        }
        return ms;
    }

    private static String formatMillis(double ms) {
        return ms == Math.rint(ms) ? Long.toString((long) ms) : Double.toString(ms);
    }

    private static int atLeastOne(String key, String value, int max) {
        if (value.isEmpty() || value.length() > 5 || !value.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException(key + ": " + value + " (expected: a number)");
        }
        int n = Integer.parseInt(value);
        if (n < 1 || n > max) {
            throw new IllegalArgumentException(key + ": " + value + " (expected: 1.." + max + ")");
        }
        return n;
    }

    /** {@code IP:PORT} or {@code [IPv6]:PORT}, a literal address only: the server resolves no names for clients. */
    private static InetSocketAddress entry(String value) {
        IllegalArgumentException malformed = new IllegalArgumentException("meridian-entry: " + value + " (expected: IP:PORT)");
        if (value.length() > 64) {
            throw malformed;
        }
        HostPort hostPort;
        try {
            hostPort = HostPort.parse(value);
        } catch (IllegalArgumentException e) {
            throw malformed;
        }
        InetAddress ip = hostPort.literalAddress().orElseThrow(() -> new IllegalArgumentException("meridian-entry: "
                + value + " (expected: a literal IP address)"));
        return new InetSocketAddress(ip, atLeastOne("meridian-entry port", Integer.toString(hostPort.port()), 65535));
    }
}

package io.fsp.extension;

import io.fsp.checksum.ChecksumAlgorithm;
import io.fsp.config.Durations;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The knobs of a striped transfer, set with {@code FSPO key=value …} (docs/protocol.md §1, FSP extension): a value for
 * every transfer option ({@link FspOption#transferOptions()}), each parsed and bounded by its key, and the one form the
 * server shows them in ({@link #describe()}, {@link #announced()}). The accessors name what the server acts on.
 */
public final class TransferOptions {
    public static final TransferOptions DEFAULTS = new TransferOptions(
            FspOption.transferOptions().stream().map(FspOption::defaultValue).toArray());

    /** By {@link FspOption#slot()}. */
    private final Object[] values;

    private TransferOptions(Object[] values) {
        this.values = values;
    }

    /** The value of transfer option {@code option}. */
    @SuppressWarnings("unchecked")
    public <T> T get(FspOption<T> option) {
        return (T) values[slot(option)];
    }

    /** This with {@code option} set to {@code value}; throws {@link IllegalArgumentException} if out of bounds. */
    public <T> TransferOptions with(FspOption<T> option, T value) {
        Object[] changed = values.clone();
        changed[slot(option)] = option.check(value);
        return new TransferOptions(changed);
    }

    /** This with {@code key} set to {@code value}, as FSPO reads a pair; throws {@link IllegalArgumentException} naming the problem. */
    public TransferOptions with(String key, String value) {
        FspOption<?> option = FspOption.named(key).filter(FspOption::isTransferOption).orElseThrow(() ->
                new IllegalArgumentException("option: " + key + " (expected: one of " + FspOption.transferOptions()
                        .stream().map(FspOption::name).collect(Collectors.joining(", ")) + ")"));
        return withText(option, value);
    }

    /** This with the transfer options of {@code options} set, in order; the others it holds are left out. */
    public TransferOptions with(FspOptions options) {
        TransferOptions o = this;
        for (FspOptions.Value<?> v : options.values()) {
            if (v.option().isTransferOption()) {
                o = o.withValue(v);
            }
        }
        return o;
    }

    private <T> TransferOptions withValue(FspOptions.Value<T> v) {
        return with(v.option(), v.value());
    }

    private <T> TransferOptions withText(FspOption<T> option, String text) {
        return with(option, option.parse(text));
    }

    private static int slot(FspOption<?> option) {
        if (!option.isTransferOption()) {
            throw new IllegalArgumentException("option: " + option + " (expected: a transfer option)");
        }
        return option.slot();
    }

    /** Plaintext bytes per block (4 KiB .. 16 MiB), or {@link FspOption#AUTO_BLOCK_SIZE}: the server picks it by the transfer. */
    public int blockSize() {
        return get(FspOption.BLOCK_SIZE);
    }

    /** Whether the server picks the block size by the transfer ({@code block-size=auto}). */
    public boolean automaticBlockSize() {
        return blockSize() == FspOption.AUTO_BLOCK_SIZE;
    }

    /** These options with blocks of {@code size} bytes. */
    public TransferOptions withBlockSize(int size) {
        return with(FspOption.BLOCK_SIZE, size);
    }

    /** The zstd level, 0 for no compression. */
    public int compressionLevel() {
        return get(FspOption.COMPRESSION);
    }

    /** The AES-GCM key size (128 or 256), 0 for clear blocks. */
    public int cipherBits() {
        return get(FspOption.CIPHER);
    }

    /** The per-block wire checksum. */
    public ChecksumAlgorithm checksum() {
        return get(FspOption.CHECKSUM);
    }

    /** The end-to-end digest of each block's plaintext, announced on the control channel. */
    public ChecksumAlgorithm digest() {
        return get(FspOption.DIGEST);
    }

    /** How blocks are spread over the targets. */
    public DistributionStrategy strategy() {
        return get(FspOption.STRATEGY);
    }

    /** Whether the client's data connection is a target beside the relays. */
    public boolean includeDirect() {
        return get(FspOption.INCLUDE_DIRECT);
    }

    /** Parallel fetches the client may run per relay (advisory for the server). */
    public int streams() {
        return get(FspOption.STREAMS);
    }

    /** Stripe over the relay list; off with include-direct sends every block on the data connection. */
    public boolean useRelays() {
        return get(FspOption.USE_RELAYS);
    }

    /**
     * On how many relays each relay-placed block is stored (1..3), so that a client can fetch a block from another
     * relay when one fails or goes away, without going back to the origin.
     */
    public int replicas() {
        return get(FspOption.REPLICAS);
    }

    /**
     * How long relays keep the transfer for a collector that comes later ({@link Duration#ZERO}: off); a transfer with
     * it is an evacuation, which outlives its control connection.
     */
    public Duration retain() {
        return get(FspOption.RETAIN);
    }

    /**
     * A dry run of an evacuation: the transfer is opened and pushed as the evacuation would be, and aborted at the
     * relays when it ends; only with {@code retain} ({@link #requireProbeWithRetain()}).
     */
    public boolean probe() {
        return get(FspOption.PROBE);
    }

    /** Whether a FRET with these options is an evacuation: {@code retain} is set. */
    public boolean evacuation() {
        return !retain().isZero();
    }

    /**
     * Throws {@link IllegalArgumentException} naming the value and the range if {@code retain} is longer than
     * {@code maxRetain} (the server's {@code max-retain}).
     */
    public void requireRetainAtMost(Duration maxRetain) {
        if (retain().compareTo(maxRetain) > 0) {
            throw new IllegalArgumentException(FspOption.RETAIN + ": " + Durations.format(retain()) + " (expected: off or "
                    + Durations.format(FspOption.MIN_RETAIN) + ".." + Durations.format(maxRetain) + ", the server's max-retain)");
        }
    }

    /**
     * Throws {@link IllegalArgumentException} if {@code probe=on} without {@code retain}: a probe is a dry run of an
     * evacuation. Checked once all pairs of an FSPO are set, so that their order does not matter.
     */
    public void requireProbeWithRetain() {
        if (probe() && !evacuation()) {
            throw new IllegalArgumentException("probe: on (expected: only with retain=DURATION: a probe is a dry run"
                    + " of an evacuation)");
        }
    }

    /**
     * Every option as FSPO takes it, in a fixed order: what FSPO shows and the FSP announcement carries; {@code probe}
     * only when on.
     */
    public FspOptions announced() {
        FspOptions o = FspOptions.NONE;
        for (FspOption<?> option : FspOption.transferOptions()) {
            o = option == FspOption.PROBE && !probe() ? o : withValueOf(o, option);
        }
        return o;
    }

    private <T> FspOptions withValueOf(FspOptions o, FspOption<T> option) {
        return o.with(option, get(option));
    }

    /** The options as {@code key=value} words, as FSPO answers and FRET announces them. */
    public String describe() {
        return announced().toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TransferOptions other && Arrays.equals(values, other.values);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        return "TransferOptions[" + describe() + "]";
    }
}

package io.fsp.extension;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Typed {@code key=value} options in order: what a client asks with one {@code FSPO} ({@link #command()}, read back
 * by the server with {@link #parse(String)}), and what an FSP line announces ({@link Announcement.Transfer}). Each
 * value is within its key's bounds ({@link FspOption#check}), so what is written here is what the key reads back.
 */
public final class FspOptions {
    /** Most pairs one FSPO takes. */
    public static final int MAX_PAIRS = 16;
    public static final FspOptions NONE = new FspOptions(List.of());

    /** One typed pair: {@code option=value}. */
    public record Value<T>(FspOption<T> option, T value) {
        public Value {
            option.check(value);
        }

        @Override
        public String toString() {
            return option.pair(value);
        }
    }

    private final List<Value<?>> values;

    private FspOptions(List<Value<?>> values) {
        this.values = List.copyOf(values);
    }

    /** This and then {@code option=value}; throws {@link IllegalArgumentException} if the value is out of bounds. */
    public <T> FspOptions with(FspOption<T> option, T value) {
        List<Value<?>> more = new ArrayList<>(values);
        more.add(new Value<>(option, value));
        return new FspOptions(more);
    }

    /** This and then {@code option} as {@code text} says ({@link FspOption#parse}). */
    public FspOptions withText(FspOption<?> option, String text) {
        return with(option, text);
    }

    private <T> FspOptions with(FspOption<T> option, String text) {
        return with(option, option.parse(text));
    }

    /** This and then the pairs of {@code more}. */
    public FspOptions with(FspOptions more) {
        List<Value<?>> all = new ArrayList<>(values);
        all.addAll(more.values);
        return new FspOptions(all);
    }

    /** The value given last for {@code option}, if any. */
    @SuppressWarnings("unchecked")
    public <T> Optional<T> get(FspOption<T> option) {
        for (int i = values.size() - 1; i >= 0; i--) {
            if (values.get(i).option().name().equals(option.name())) {
                return Optional.of((T) values.get(i).value());
            }
        }
        return Optional.empty();
    }

    /** The value given for {@code option}, else its default. */
    public <T> T getOrDefault(FspOption<T> option) {
        return get(option).orElse(option.defaultValue());
    }

    public List<Value<?>> values() {
        return values;
    }

    public boolean isEmpty() {
        return values.isEmpty();
    }

    public int size() {
        return values.size();
    }

    /** The pairs as {@code key=value} words. */
    public List<String> words() {
        return values.stream().map(Value::toString).toList();
    }

    /** The command: {@code FSPO key=value …}; throws if it has more than {@link #MAX_PAIRS} pairs. */
    public String command() {
        if (values.size() > MAX_PAIRS) {
            throw new IllegalArgumentException("options: " + values.size() + " (expected: <= " + MAX_PAIRS + ")");
        }
        return values.isEmpty() ? "FSPO" : "FSPO " + String.join(" ", words());
    }

    /**
     * The argument of an FSPO: at most {@link #MAX_PAIRS} {@code key=value} words, separated by blanks, each key one
     * FSPO takes (any case) and each value within its bounds; the first that is not is refused, naming it. Every word is
     * checked for its form before any value is read.
     */
    public static FspOptions parse(String argument) {
        String trimmed = argument.trim();
        String[] words = trimmed.isEmpty() ? new String[0] : trimmed.split("\\s+");
        if (words.length > MAX_PAIRS) { // before any word is looked at
            throw new IllegalArgumentException("options: " + words.length + " (expected: <= " + MAX_PAIRS + ")");
        }
        for (String w : words) {
            if (w.indexOf('=') <= 0) {
                throw new IllegalArgumentException("option: '" + w + "' (expected: key=value)");
            }
        }
        FspOptions options = NONE;
        for (String w : words) {
            int eq = w.indexOf('=');
            String key = w.substring(0, eq);
            FspOption<?> option = FspOption.named(key).orElseThrow(() -> new IllegalArgumentException("option: " + key
                    + " (expected: one of " + FspOption.transferOptions().stream().map(FspOption::name)
                            .collect(Collectors.joining(", ")) + ")"));
            options = options.withText(option, w.substring(eq + 1));
        }
        return options;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FspOptions other && words().equals(other.words());
    }

    @Override
    public int hashCode() {
        return words().hashCode();
    }

    @Override
    public String toString() {
        return String.join(" ", words());
    }
}

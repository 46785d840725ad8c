package io.fsp.cli;

import io.fsp.extension.FspOption;
import io.fsp.extension.FspOptions;

/**
 * FSP options given as a command's flags ({@code --replicas 4}): each value checked by its key before anything
 * connects, as the server would check it, and refused naming the flag ({@code --replicas: 4 (expected: 1..3)}).
 */
final class FspFlags {
    private FspFlags() {
    }

    /** {@code options} and then {@code option=value}; unchanged when the flag was not given ({@code value} null). */
    static <T> FspOptions with(FspOptions options, FspOption<T> option, T value) {
        try {
            return value == null ? options : options.with(option, value);
        } catch (IllegalArgumentException e) {
            throw refused(option, e);
        }
    }

    /** {@code options} and then {@code option} as {@code text} says; unchanged when {@code text} is null. */
    static FspOptions withText(FspOptions options, FspOption<?> option, String text) {
        try {
            return text == null ? options : options.withText(option, text);
        } catch (IllegalArgumentException e) {
            throw refused(option, e);
        }
    }

    private static IllegalArgumentException refused(FspOption<?> option, IllegalArgumentException e) {
        String why = e.getMessage();
        return new IllegalArgumentException("--" + (why.startsWith(option.name() + ":") ? why : option.name() + ": " + why), e);
    }
}

package io.fsp.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Where a command that logs in takes the password from: {@code --password-file} (or the client configuration's
 * {@code password-file}, {@link ClientSettings#passwordFile()}), else {@code $FSP_PASSWORD}, else a prompt without
 * echo when there is a terminal. The option field declares the syntax; its value is read as a configuration key.
 */
final class PasswordOption {
    static final String ENVIRONMENT = "FSP_PASSWORD";

    @Option(names = "--password-file", paramLabel = "FILE", description = "Read the password from the first line of FILE"
            + " (default: $FSP_PASSWORD, else ask on the terminal without echo).")
    Path passwordFile;

    /** Reads a password without echoing it ({@link java.io.Console#readPassword}); null when the input ended. */
    interface Prompt {
        char[] read(String prompt);
    }

    /** The command's terminal's prompt (no echo), if it has a terminal. */
    static Optional<Prompt> terminal() {
        return Invocation.current().prompt();
    }

    /** The password for {@code account} (user@host) from the file, $FSP_PASSWORD or the terminal. */
    static char[] password(Optional<Path> file, String account) throws IOException {
        return password(file, Invocation.current().env(ENVIRONMENT), terminal(), account);
    }

    /** The password from {@code file}, else {@code environment}, else {@code prompt}; an IllegalArgumentException says what is missing. */
    static char[] password(Optional<Path> file, String environment, Optional<Prompt> prompt, String account) throws IOException {
        if (file.isPresent()) {
            List<String> lines = Files.readAllLines(file.get(), StandardCharsets.UTF_8);
            if (lines.isEmpty()) {
                throw new IllegalArgumentException("--password-file " + file.get() + ": empty (expected: the password on the first line)");
            }
            return lines.get(0).toCharArray();
        }
        if (environment != null) {
            return environment.toCharArray();
        }
        if (prompt.isEmpty()) {
            throw new IllegalArgumentException("no password: set " + ENVIRONMENT + " or give --password-file FILE"
                    + " (no terminal to ask on)");
        }
        char[] typed = prompt.get().read("Password for " + account + ": ");
        if (typed == null) {
            throw new IllegalArgumentException("no password: the terminal's input ended");
        }
        return typed;
    }
}

package io.fsp.client.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Where a command that logs in takes the password from: {@code --password-file} (or the client configuration's
 * {@code password-file}, {@link ClientSettings#passwordFile()}), else {@code $FSP_PASSWORD}. The option field
 * declares the syntax; its value is read as a configuration key.
 */
final class PasswordOption {
    @Option(names = "--password-file", paramLabel = "FILE", description = "Read the password from the first line of FILE.")
    Path passwordFile;

    /** The password from {@code file}, else $FSP_PASSWORD; an IllegalArgumentException says what is missing. */
    static char[] password(Optional<Path> file) throws IOException {
        if (file.isPresent()) {
            List<String> lines = Files.readAllLines(file.get(), StandardCharsets.UTF_8);
            if (lines.isEmpty()) {
                throw new IllegalArgumentException("--password-file " + file.get() + ": empty (expected: the password on the first line)");
            }
            return lines.get(0).toCharArray();
        }
        String env = System.getenv("FSP_PASSWORD");
        if (env == null) {
            throw new IllegalArgumentException("no password: set FSP_PASSWORD or give --password-file FILE");
        }
        return env.toCharArray();
    }
}

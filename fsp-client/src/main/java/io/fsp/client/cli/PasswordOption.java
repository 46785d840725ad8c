package io.fsp.client.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/** Where a command that logs in takes the password from: {@code --password-file}, else {@code $FSP_PASSWORD}. */
final class PasswordOption {
    @Option(names = "--password-file", paramLabel = "FILE", description = "Read the password from the first line of FILE.")
    Path passwordFile;

    /** The password; an IllegalArgumentException says what is missing. */
    char[] password() throws IOException {
        if (passwordFile != null) {
            List<String> lines = Files.readAllLines(passwordFile, StandardCharsets.UTF_8);
            if (lines.isEmpty()) {
                throw new IllegalArgumentException("--password-file " + passwordFile + ": empty (expected: the password on the first line)");
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

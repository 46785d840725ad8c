package io.fsp.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import picocli.CommandLine.Option;

/**
 * Where a command that logs in takes the password from: {@code --password-file} (or the client configuration's
 * {@code password-file}, {@link ClientSettings#passwordFile()}), else {@code $FSP_PASSWORD}, else a prompt without
 * echo when there is a terminal. The option field declares the syntax; its value is read as a configuration key.
 */
final class PasswordOption {
    static final String ENVIRONMENT = "FSP_PASSWORD";
    /** The line of a command's description that says where the password comes from. */
    static final String HELP = "Password: --password-file, else $FSP_PASSWORD, else asked on the terminal.";
    private static final Set<PosixFilePermission> GROUP_OR_OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

    @Option(names = "--password-file", paramLabel = "FILE", description = "Read the password from the first line of FILE,"
            + " which only its owner may read (chmod 600) (default: $FSP_PASSWORD, else ask on the terminal without echo).")
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
            refuseIfOthersCanRead(file.get());
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

    /**
     * A password file its group or others may read (or change) could already be in other hands: refused, as OpenSSH
     * refuses such a key, before it is read. Where the file system has no POSIX permissions, not checked.
     */
    private static void refuseIfOthersCanRead(Path file) throws IOException {
        if (!file.getFileSystem().supportedFileAttributeViews().contains("posix") || !Files.exists(file)) {
            return; // a missing file is reported by the read
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
        if (!Collections.disjoint(perms, GROUP_OR_OTHERS)) {
            throw new IllegalArgumentException("--password-file " + file + ": open to its group or others ("
                    + PosixFilePermissions.toString(perms) + "); run 'chmod 600 " + file
                    + "' (expected: only its owner may read it)");
        }
    }

}

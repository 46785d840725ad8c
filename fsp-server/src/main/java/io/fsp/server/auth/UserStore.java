package io.fsp.server.auth;

import io.fsp.config.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The accounts that may log in. The users file has one account per line:
 * <pre>
 * # NAME  ACCESS      HASH                                         [ROOT]
 * alice   read-write  $argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA  /srv/ftp/alice
 * bob     read-only   $argon2id$v=19$m=19456,t=2,p=1$...           
 * </pre>
 * ACCESS is {@code read-only} or {@code read-write}; ROOT (the rest of the line, so it may contain
 * blanks) defaults to the server's root; a relative ROOT is relative to the users file's directory.
 */
public final class UserStore {
    private final Map<String, UserAccount> accounts;
    private final Optional<UserAccount> anonymous;

    public UserStore(Collection<UserAccount> accounts, Optional<UserAccount> anonymous) {
        Map<String, UserAccount> byName = new LinkedHashMap<>();
        for (UserAccount a : accounts) {
            if (byName.putIfAbsent(a.name(), a) != null) {
                throw new IllegalArgumentException("user '" + a.name() + "': defined twice (expected: once)");
            }
        }
        this.accounts = Map.copyOf(byName);
        this.anonymous = anonymous;
    }

    /** The account for a USER name; {@code anonymous} and {@code ftp} name the anonymous account if enabled. */
    public Optional<UserAccount> find(String name) {
        UserAccount a = accounts.get(name);
        if (a != null) {
            return Optional.of(a);
        }
        if (name.equalsIgnoreCase(UserAccount.ANONYMOUS) || name.equalsIgnoreCase("ftp")) {
            return anonymous;
        }
        return Optional.empty();
    }

    public int size() {
        return accounts.size() + (anonymous.isPresent() ? 1 : 0);
    }

    /** Reads a users file; a line it cannot take is a {@link ConfigException} naming the file and line. */
    public static List<UserAccount> readFile(Path file, Path defaultRoot) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        Path dir = file.toAbsolutePath().getParent();
        List<UserAccount> result = new java.util.ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\\s+", 4);
            String where = file + ":" + (i + 1) + ": ";
            if (f.length < 3) {
                throw new ConfigException(where + "'" + f[0] + "' (expected: NAME ACCESS HASH [ROOT])");
            }
            boolean writable = switch (f[1]) {
                case "read-write", "rw" -> true;
                case "read-only", "ro" -> false;
                default -> throw new ConfigException(where + "access '" + f[1]
                        + "' (expected: read-only or read-write)");
            };
            try {
                PasswordHasher.validate(f[2]);
                Path root = f.length == 4 ? dir.resolve(f[3]) : defaultRoot;
                if (root == null) {
                    throw new IllegalArgumentException("no ROOT and no server root (set --root or add a ROOT column)");
                }
                result.add(new UserAccount(f[0], f[2], root, writable));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(where + e.getMessage(), e);
            }
        }
        return result;
    }
}

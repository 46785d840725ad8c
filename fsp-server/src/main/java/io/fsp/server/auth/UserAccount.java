package io.fsp.server.auth;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One user: name, Argon2id hash (PHC string; empty for the anonymous account, which takes any password),
 * root directory, and whether the user may change files.
 */
public record UserAccount(String name, String passwordHash, Path root, boolean writable) {
    public static final String ANONYMOUS = "anonymous";

    public UserAccount {
        Objects.requireNonNull(root, "root");
        if (name.isEmpty() || name.length() > 64 || !name.matches("[\\p{L}\\p{N}._@-]+")) {
            throw new IllegalArgumentException("user name: '" + name
                    + "' (expected: 1..64 letters, digits, '.', '_', '@', '-')");
        }
    }

    public boolean isAnonymous() {
        return passwordHash.isEmpty();
    }

    @Override
    public String toString() {
        return "UserAccount[" + name + ", root=" + root + (writable ? ", read-write" : ", read-only") + "]";
    }
}

package io.fsp.client.write;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;

/**
 * The user this process runs as, as the file system names owners: to tell a file this process made from one another
 * local user put in its place. Linux: the owner of {@code /proc/self}; null elsewhere (no owner is checked).
 */
public final class ProcessUser {
    private static final UserPrincipal PRINCIPAL = find();

    private ProcessUser() {
    }

    /** This process's user, null where it cannot be told. */
    public static UserPrincipal principal() {
        return PRINCIPAL;
    }

    private static UserPrincipal find() {
        try {
            Path self = Path.of("/proc/self");
            return Files.isDirectory(self) ? Files.getOwner(self) : null;
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }
}

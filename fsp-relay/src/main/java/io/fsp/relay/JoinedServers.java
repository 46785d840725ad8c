package io.fsp.relay;

import io.fsp.tls.Fingerprint;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The servers this relay joined ({@code fsp-relay join}), in {@code STATE-DIR/joined-servers}: a fingerprint a line,
 * then {@code #} and the server's address. The relay trusts them beside {@code trust-server}; a running relay looks
 * at the file at each handshake of a peer that presents a certificate and reads it again when it changed, so a join
 * needs no restart.
 */
final class JoinedServers {
    static final String FILE = "joined-servers";
    private static final Logger log = LoggerFactory.getLogger(JoinedServers.class);
    private final Path path;
    private FileTime read;
    private Set<Fingerprint> servers = Set.of();

    JoinedServers(Path stateDir) {
        this.path = stateDir.resolve(FILE);
    }

    /** The joined servers, read again if the file changed since the last call. */
    synchronized Set<Fingerprint> current() {
        FileTime modified;
        try {
            modified = Files.getLastModifiedTime(path);
        } catch (IOException e) {
            return servers = Set.of();
        }
        if (!modified.equals(read)) {
            try {
                servers = parse(Files.readAllLines(path, StandardCharsets.UTF_8));
                read = modified;
            } catch (IOException e) {
                log.warn("cannot read {}: {}", path, e.toString());
            }
        }
        return servers;
    }

    /** Adds {@code server} (reached at {@code address}), written by a rename so a running relay reads it whole. */
    static void add(Path stateDir, Fingerprint server, String address) throws IOException {
        Path path = stateDir.resolve(FILE);
        Files.createDirectories(stateDir);
        List<String> lines = new ArrayList<>();
        try {
            lines.addAll(Files.readAllLines(path, StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            lines.add("# servers this relay joined (fsp-relay join): FINGERPRINT # SERVER; trusted beside trust-server");
        }
        lines.removeIf(l -> l.startsWith(server.toString()));
        lines.add(server + " # " + address);
        Path temp = path.resolveSibling(FILE + ".new");
        Files.write(temp, lines, StandardCharsets.UTF_8);
        handOver(stateDir, List.of(temp));
        Files.move(temp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Gives {@code made} to the owner of {@code dir}: root joining for a relay that runs as its own user (systemd's
     * DynamicUser, whose StateDirectory is the relay's) makes files the relay must read and write, as its directory.
     */
    static void handOver(Path dir, List<Path> made) {
        try {
            java.nio.file.attribute.UserPrincipal owner = Files.getOwner(dir);
            for (Path p : made) {
                Files.setOwner(p, owner);
            }
        } catch (IOException | UnsupportedOperationException e) {
            // not root: the files are this user's, as the directory is
        }
    }

    private static Set<Fingerprint> parse(List<String> lines) {
        Set<Fingerprint> all = new HashSet<>();
        for (String line : lines) {
            String fp = line.replaceFirst("#.*", "").trim();
            if (!fp.isEmpty()) {
                try {
                    all.add(Fingerprint.parse(fp));
                } catch (IllegalArgumentException e) {
                    // a damaged line: skipped
                }
            }
        }
        return Set.copyOf(all);
    }
}

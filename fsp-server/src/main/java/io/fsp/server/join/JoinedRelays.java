package io.fsp.server.join;

import io.fsp.server.select.RelayEndpoint;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The relays that joined, in {@code STATE-DIR/joined-relays}: one {@code HOST:PORT=FINGERPRINT} a line, as the
 * {@code relay} lines of the configuration. The server uses them beside its configured relays, from start and as
 * the file changes; a configured relay at the same address wins.
 */
public final class JoinedRelays {
    public static final String FILE = "joined-relays";
    private final StateFile file;

    public JoinedRelays(Path stateDir) {
        this.file = new StateFile(stateDir.resolve(FILE));
    }

    public Path path() {
        return file.path();
    }

    /** The joined relays; lines that do not read are skipped. */
    public List<RelayEndpoint> list() throws IOException {
        return parse(file.read());
    }

    /** Adds {@code relay}, replacing one at the same address. */
    public void add(RelayEndpoint relay) throws IOException {
        file.update(lines -> {
            List<RelayEndpoint> all = new ArrayList<>(parse(lines));
            all.removeIf(r -> r.hostPort().equals(relay.hostPort()));
            all.add(relay);
            return lines(all);
        });
    }

    /** Removes the relay at {@code hostPort}; false when none is there. */
    public boolean remove(String hostPort) throws IOException {
        AtomicBoolean removed = new AtomicBoolean();
        file.update(lines -> {
            List<RelayEndpoint> all = new ArrayList<>(parse(lines));
            removed.set(all.removeIf(r -> r.hostPort().equals(hostPort)));
            return removed.get() ? lines(all) : lines;
        });
        return removed.get();
    }

    /** {@code configured}, then the joined relays at other addresses. */
    public static List<RelayEndpoint> merge(List<RelayEndpoint> configured, List<RelayEndpoint> joined) {
        List<RelayEndpoint> all = new ArrayList<>(configured);
        joined.stream().filter(j -> configured.stream().noneMatch(c -> c.hostPort().equals(j.hostPort())))
                .forEach(all::add);
        return List.copyOf(all);
    }

    private static List<RelayEndpoint> parse(List<String> lines) {
        List<RelayEndpoint> all = new ArrayList<>();
        for (String line : lines) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            try {
                all.add(RelayEndpoint.parse(line.trim()));
            } catch (RuntimeException e) {
                // a damaged line: skipped, the others stay in use
            }
        }
        return all;
    }

    private static List<String> lines(List<RelayEndpoint> all) {
        List<String> lines = new ArrayList<>();
        lines.add("# relays that joined with fsp-relay join: HOST:PORT=FINGERPRINT; fsp-server relays remove HOST:PORT");
        all.forEach(r -> lines.add(r.toString()));
        return lines;
    }
}

package io.fsp.server.join;

import io.fsp.server.select.RelayEndpoint;
import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The static relay list a server uses: the configured {@code relay} lines, then the relays in {@code joined-relays}.
 * Either part changes while the server runs (a reload, a join, {@code fsp-server relays remove}); each change hands
 * the whole list to {@code apply}, the same path a configuration reload takes.
 */
public final class ServedRelays {
    private static final Logger log = LoggerFactory.getLogger(ServedRelays.class);
    private final JoinedRelays joined;
    private final Consumer<List<RelayEndpoint>> apply;
    private List<RelayEndpoint> configured;
    private List<RelayEndpoint> joinedNow = List.of();

    public ServedRelays(JoinedRelays joined, List<RelayEndpoint> configured, Consumer<List<RelayEndpoint>> apply) {
        this.joined = joined;
        this.configured = List.copyOf(configured);
        this.apply = apply;
        readJoined();
    }

    /** The list as it is now. */
    public synchronized List<RelayEndpoint> all() {
        return JoinedRelays.merge(configured, joinedNow);
    }

    public synchronized List<RelayEndpoint> configured() {
        return configured;
    }

    /** Replaces the configured part (a reload) and applies the list. */
    public synchronized void configured(List<RelayEndpoint> relays) {
        configured = List.copyOf(relays);
        apply.accept(all());
    }

    /** Reads {@code joined-relays} again and, when it changed, applies the list. */
    public synchronized void joinedChanged() {
        List<RelayEndpoint> before = joinedNow;
        readJoined();
        if (!before.equals(joinedNow)) {
            log.info("joined relays now {} (added {}, removed {})", joinedNow,
                    joinedNow.stream().filter(r -> !before.contains(r)).toList(),
                    before.stream().filter(r -> !joinedNow.contains(r)).toList());
            apply.accept(all());
        }
    }

    private void readJoined() {
        try {
            joinedNow = joined.list();
        } catch (IOException e) {
            log.error("cannot read {}: {}; the joined relays stay as they were", joined.path(), e.toString());
        }
    }
}

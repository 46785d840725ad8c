package io.fsp.server;

import io.fsp.config.ConfigException;
import io.fsp.config.ConfigLoader;
import io.fsp.server.config.ServerConfig;
import io.fsp.server.select.RelayEndpoint;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A configuration reload of a running server ({@code kill -HUP}, systemd's {@code ExecReload}): the settings are
 * read again exactly as at start (defaults, the {@code --config} file, the same command line on top) and must
 * all be valid, or nothing changes. Then the static relay list ({@code relay}) is applied: the next FRET uses
 * it, transfers under way keep their relays, and removed relays' kept connections are closed once idle; so are
 * the relays FCOL may collect from ({@code relay} and {@code collect-relay}): the next FCOL is judged by them,
 * collections under way keep theirs. So are the rights that must be revocable at once: the relays trusted by
 * fingerprint ({@code trust-relay}) and the users who may evacuate ({@code retain-user}). Other keys that changed are
 * named in the log: they take effect at the next start.
 */
final class ConfigReload {
    private static final Logger log = LoggerFactory.getLogger(ConfigReload.class);
    private static final String RELAY_KEY = "relay";
    private static final String COLLECT_RELAY_KEY = "collect-relay";
    /** What a reload applies: who and what is trusted or allowed must be revocable without a restart. */
    private static final List<String> APPLIED = List.of(RELAY_KEY, COLLECT_RELAY_KEY, "trust-relay", "retain-user");

    private final FspServer server;
    private final ServerConfig started;
    private final String source;
    private final Supplier<ServerConfig> load;

    /**
     * @param started the settings the server started with
     * @param source what is read again, for the log (the configuration file)
     * @param load reads the settings as at start; throws {@link ConfigException} when they are not valid
     */
    ConfigReload(FspServer server, ServerConfig started, String source, Supplier<ServerConfig> load) {
        this.server = server;
        this.started = started;
        this.source = source;
        this.load = load;
    }

    /** Reads the settings again and applies the relay list; returns whether the settings were valid. */
    synchronized boolean reload() {
        ServerConfig next;
        try {
            next = load.get();
        } catch (ConfigException | IllegalArgumentException e) {
            log.error("reload of {} refused, nothing changed: {}", source, e.getMessage());
            return false;
        }
        List<String> atRestart = changedKeys(started, next).stream().filter(k -> !APPLIED.contains(k)).toList();
        if (!atRestart.isEmpty()) {
            log.warn("reload of {}: {} changed, which takes effect at the next start (a reload applies only {})",
                    source, String.join(", ", atRestart), String.join(", ", APPLIED));
        }
        List<RelayEndpoint> before = server.configuredRelays();
        ServerConfig.Striping striping = next.striping();
        List<RelayEndpoint> added = striping.relay().stream().filter(r -> !before.contains(r)).toList();
        List<RelayEndpoint> removed = before.stream().filter(r -> !striping.relay().contains(r)).toList();
        server.relays(striping.relay());
        server.collectRelays(next.collection().collectRelay(), striping.trustRelay());
        server.retainGrants(striping.retainUser());
        log.info("reloaded {}: {} relay(s) for new transfers, added {}, removed {}; {} collect-relay line(s), {}"
                + " trust-relay fingerprint(s), {} retain-user line(s)", source, server.relays().size(), added, removed,
                next.collection().collectRelay().size(), striping.trustRelay().size(), striping.retainUser().size());
        return true;
    }

    /** The keys whose values differ between {@code a} and {@code b}. */
    static List<String> changedKeys(ServerConfig a, ServerConfig b) {
        Map<String, Object> before = ConfigLoader.values(a);
        Map<String, Object> after = ConfigLoader.values(b);
        return before.keySet().stream().filter(k -> !Objects.equals(before.get(k), after.get(k))).toList();
    }
}

package io.fsp.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.net.HostPort;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Settings declared once: defaults, bounds and groups of keys come from the declarations. */
class SettingsTest {
    record Config(Net net, Limits limits, Checks checks) {
        record Net(List<HostPort> listen, Optional<HostPort> metrics) {
        }

        record Limits(int maxConnections, Duration idleTimeout) {
            Limits {
                if (idleTimeout.isZero()) {
                    throw new IllegalArgumentException("idle-timeout: 0s (expected: > 0)");
                }
            }
        }
    }

    /** A group declared elsewhere (a part's own settings, as the FTP core's): a record with no parse(String). */
    record Checks(boolean verify) {
    }

    static final Settings<Config> SETTINGS = new Settings<>(Config.class, List.of(
            Setting.of("listen", "HOST:PORT", "127.0.0.1:2121", "Address to listen on (default: {default})."),
            Setting.of("metrics", "HOST:PORT", null, "Metrics endpoint."),
            Setting.of("max-connections", "N", "256", "Connections.").range(1, 1000),
            Setting.of("idle-timeout", "DURATION", "5m", "Idle.").fileOnly(),
            Setting.flag("verify", true, "Verify.")));

    @Test
    void defaultsComeFromTheDeclarations() {
        Config d = SETTINGS.defaults();
        assertEquals(List.of(new HostPort("127.0.0.1", 2121)), d.net().listen());
        assertEquals(Optional.empty(), d.net().metrics());
        assertEquals(256, d.limits().maxConnections());
        assertEquals(Duration.ofMinutes(5), d.limits().idleTimeout());
        assertTrue(d.checks().verify());
        assertEquals("Address to listen on (default: 127.0.0.1:2121).", SETTINGS.find("listen").orElseThrow().help());
    }

    @Test
    void groupsAreLoadedFromFlatKeys() {
        Config c = SETTINGS.load(ConfigSource.of("f", Map.of("max-connections", List.of("7"),
                "listen", List.of("[::1]:21", "127.0.0.1:21"))));
        assertEquals(7, c.limits().maxConnections());
        assertEquals(2, c.net().listen().size());
        assertEquals(List.of("listen", "metrics", "max-connections", "idle-timeout", "verify"),
                ConfigLoader.keys(Config.class));
        assertTrue(SETTINGS.repeatable("listen"));
    }

    @Test
    void boundsAndRecordChecksNameTheKey() {
        ConfigException e = assertThrows(ConfigException.class, () -> SETTINGS.load(ConfigSource.commandLine(
                Map.of("max-connections", List.of("0")))));
        assertEquals("--max-connections: 0 (expected: 1..1000)", e.getMessage());
        e = assertThrows(ConfigException.class, () -> SETTINGS.load(ConfigSource.of("f",
                Map.of("idle-timeout", List.of("0s")))));
        assertEquals("f: idle-timeout: 0s (expected: > 0)", e.getMessage());
    }

    @Test
    void everyKeyIsDeclaredOnce() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new Settings<>(Config.class,
                SETTINGS.all().subList(1, 5)));
        assertEquals("Config: undeclared [listen], not in the record []", e.getMessage());
    }
}

package io.fsp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.config.ConfigSource;
import io.fsp.server.config.ServerConfig;
import io.fsp.server.config.ServerSettings;
import io.fsp.server.select.RelayEndpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A configuration reload of a running server: the relay list of the file replaces the server's when every
 * setting is valid, and nothing changes when one is not. (Relays that do not listen: only the list matters here.)
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfigReloadTest {
    private static final String A = "127.0.0.1:9=" + fingerprint(1);
    private static final String B = "127.0.0.1:19=" + fingerprint(2);

    @TempDir
    Path tmp;
    Path file;
    ServerConfig started;
    FspServer server;
    ConfigReload reload;

    @BeforeEach
    void start() throws Exception {
        file = tmp.resolve("server.conf");
        Files.createDirectories(tmp.resolve("root"));
        write("listen = 127.0.0.1:0", "root = root", "user = alice:secret", "state-dir = state", "relay = " + A);
        started = load();
        server = FspServer.start(started);
        reload = new ConfigReload(server, started, file.toString(), this::load);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private ServerConfig load() {
        return ServerSettings.ALL.load(ConfigSource.read(file),
                ConfigSource.of("command line", Map.of("io-threads", List.of("1"))));
    }

    private void write(String... lines) throws Exception {
        Files.writeString(file, String.join("\n", lines) + "\n");
    }

    @Test
    void addsAndRemovesRelays() throws Exception {
        assertEquals(List.of(RelayEndpoint.parse(A)), server.relays());
        write("listen = 127.0.0.1:0", "root = root", "user = alice:secret", "state-dir = state", "relay = " + A,
                "relay = " + B);
        assertTrue(reload.reload());
        assertEquals(List.of(RelayEndpoint.parse(A), RelayEndpoint.parse(B)), server.relays());
        write("listen = 127.0.0.1:0", "root = root", "user = alice:secret", "state-dir = state", "relay = " + B);
        assertTrue(reload.reload());
        assertEquals(List.of(RelayEndpoint.parse(B)), server.relays());
        write("listen = 127.0.0.1:0", "root = root", "user = alice:secret", "state-dir = state");
        assertTrue(reload.reload());
        assertEquals(List.of(), server.relays());
    }

    /** A file with one bad line changes nothing, not even its valid relay lines. */
    @ParameterizedTest
    @ValueSource(strings = {"relay = 127.0.0.1:7001", "relay = 127.0.0.1:7001=AB:CD", "relay = 127.0.0.1:0=" + "00",
            "idle-timeout = -5s", "no-such-key = 1", "relay", "max-connections = many"})
    void aBadFileChangesNothing(String bad) throws Exception {
        write("listen = 127.0.0.1:0", "root = root", "user = alice:secret", "state-dir = state", "relay = " + B, bad);
        assertFalse(reload.reload());
        assertEquals(List.of(RelayEndpoint.parse(A)), server.relays());
    }

    @Test
    void aMissingFileChangesNothing() throws Exception {
        Files.delete(file);
        assertFalse(reload.reload());
        assertEquals(List.of(RelayEndpoint.parse(A)), server.relays());
    }

    /** Other settings are read and checked, but take effect at the next start; the relays change at once. */
    @Test
    void otherChangedSettingsWaitForARestart() throws Exception {
        write("listen = 127.0.0.1:0", "root = root", "user = alice:secret", "state-dir = state", "relay = " + B,
                "idle-timeout = 7s");
        assertTrue(reload.reload());
        assertEquals(List.of(RelayEndpoint.parse(B)), server.relays());
        assertEquals(List.of("idle-timeout", "relay"), ConfigReload.changedKeys(started, load()));
    }

    private static String fingerprint(int seed) {
        byte[] b = new byte[32];
        java.util.Arrays.fill(b, (byte) seed);
        return HexFormat.ofDelimiter(":").withUpperCase().formatHex(b);
    }
}

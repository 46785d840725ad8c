package io.fsp.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.net.HostPort;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
    enum Mode { FAST, VERY_SAFE }

    record Port(int value) {
        public static Port parse(String s) {
            int v = Integer.parseInt(s);
            if (v < 1) {
                throw new IllegalArgumentException("'" + s + "' (expected: >= 1)");
            }
            return new Port(v);
        }
    }

    record Settings(String name, int count, long big, boolean on, Duration timeout, Path dir, Mode mode,
                    List<Port> ports, Optional<String> label, ByteSize size, Optional<HostPort> peer) {
        Settings {
            if (count < 0) {
                throw new IllegalArgumentException("count: " + count + " (expected: >= 0)");
            }
        }

        Settings withOn() {
            return new Settings(name, count, big, true, timeout, dir, mode, ports, label, size, peer);
        }
    }

    static final Settings DEFAULTS = new Settings("x", 1, 2, false, Duration.ofSeconds(1), Path.of("d"), Mode.FAST,
            List.of(), Optional.empty(), new ByteSize(0), Optional.empty());

    @TempDir
    Path tmp;

    private Path file(String text) throws Exception {
        return Files.writeString(tmp.resolve("test.conf"), text);
    }

    @Test
    void mapsEveryTypeFromAFile() throws Exception {
        Path f = file("""
                # comment
                name = hello world
                count = 42

                big = 10_000_000_000
                on = yes
                timeout = 250ms
                dir = sub/dir
                mode = very-safe
                ports = 21
                ports = 2121
                label = tag
                size = 64K
                peer = [::1]:7001
                """);
        Settings s = ConfigLoader.load(DEFAULTS, ConfigSource.read(f));
        assertEquals(new Settings("hello world", 42, 10_000_000_000L, true, Duration.ofMillis(250),
                tmp.toAbsolutePath().resolve("sub/dir"), Mode.VERY_SAFE, List.of(new Port(21), new Port(2121)),
                Optional.of("tag"), new ByteSize(64 << 10), Optional.of(new HostPort("::1", 7001))), s);
    }

    @Test
    void laterLayersOverrideOnlyTheKeysTheyName() throws Exception {
        Path f = file("count = 5\nname = from-file\n");
        Settings s = ConfigLoader.load(DEFAULTS, ConfigSource.read(f),
                ConfigSource.of("command line", Map.of("count", List.of("7"))));
        assertEquals(7, s.count());
        assertEquals("from-file", s.name());
        assertEquals(Duration.ofSeconds(1), s.timeout());
    }

    @Test
    void unknownKeyNamesFileLineAndKey() throws Exception {
        Path f = file("count = 1\n\ncuont = 2\n");
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(DEFAULTS, ConfigSource.read(f)));
        assertTrue(e.getMessage().startsWith(f + ":3: unknown key 'cuont' (expected one of: name, count,"), e.getMessage());
    }

    @Test
    void badValuesNameFileLineAndKey() throws Exception {
        Path f = file("count = many\n");
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(DEFAULTS, ConfigSource.read(f)));
        assertEquals(f + ":1: count: 'many' (expected: an integer)", e.getMessage());
        assertThrows(ConfigException.class, () -> ConfigLoader.load(DEFAULTS, ConfigSource.read(file("on = maybe\n"))));
        assertThrows(ConfigException.class, () -> ConfigLoader.load(DEFAULTS, ConfigSource.read(file("timeout = soon\n"))));
        assertThrows(ConfigException.class, () -> ConfigLoader.load(DEFAULTS, ConfigSource.read(file("mode = slow\n"))));
        ConfigException port = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(DEFAULTS, ConfigSource.read(file("ports = 0\n"))));
        assertTrue(port.getMessage().endsWith("ports: '0' (expected: >= 1)"), port.getMessage());
    }

    @Test
    void recordValidationBecomesAConfigError() {
        ConfigException e = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(DEFAULTS, ConfigSource.of("--count", Map.of("count", List.of("-1")))));
        assertEquals("--count: count: -1 (expected: >= 0)", e.getMessage());
    }

    @Test
    void malformedLinesAreErrors() throws Exception {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigSource.read(file("just words\n")));
        assertTrue(e.getMessage().contains(":1: 'just words' (expected: key = value)"), e.getMessage());
        assertThrows(ConfigException.class, () -> ConfigSource.read(file("Bad_Key = 1\n")));
        assertThrows(ConfigException.class, () -> ConfigSource.read(Files.write(tmp.resolve("bin.conf"), new byte[] {(byte) 0xC3, 0x28})));
        assertThrows(ConfigException.class, () -> ConfigSource.read(tmp.resolve("missing.conf")));
    }

    @Test
    void noneClearsAnOptionalSetting() {
        Settings s = ConfigLoader.load(DEFAULTS, ConfigSource.of("a", Map.of("label", List.of("x"))),
                ConfigSource.of("b", Map.of("label", List.of("none"))));
        assertEquals(Optional.empty(), s.label());
    }

    @Test
    void keysAreKebabCase() {
        assertEquals("max-connections-per-address", ConfigLoader.keyOf("maxConnectionsPerAddress"));
    }

    @Test
    void commandLineErrorsNameTheOption() {
        ConfigException bad = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(DEFAULTS, ConfigSource.commandLine(Map.of("size", List.of("2X")))));
        assertEquals("--size: '2X' (expected: a size such as 1048576, 64K, 512M, 2G)", bad.getMessage());
        ConfigException invalid = assertThrows(ConfigException.class,
                () -> ConfigLoader.load(DEFAULTS, ConfigSource.commandLine(Map.of("count", List.of("-1")))));
        assertEquals("--count: -1 (expected: >= 0)", invalid.getMessage());
    }

    @Test
    void recordValidationNamesTheLineOfTheKeyItStartsWith() throws Exception {
        Path f = file("name = n\n\ncount = -1\n");
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(DEFAULTS, ConfigSource.read(f)));
        assertEquals(f + ":3: count: -1 (expected: >= 0)", e.getMessage());
    }
}

package io.fsp.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which file holds the client's defaults: --config, else $FSP_CONFIG, else the user's client.conf if there is one. */
class ClientConfigOptionTest {
    @TempDir
    Path home;

    @Test
    void noFileWhenNoneIsNamedAndTheUsersDoesNotExist() {
        assertEquals(Optional.empty(), ClientConfigOption.file(null, Map.of(), home));
    }

    @Test
    void theUsersFileInDotConfigWhenItExists() throws Exception {
        Path file = Files.createDirectories(home.resolve(".config/fsp")).resolve("client.conf");
        Files.writeString(file, "streams = 2\n");
        assertEquals(Optional.of(file), ClientConfigOption.file(null, Map.of(), home));
    }

    @Test
    void xdgConfigHomeReplacesDotConfig() throws Exception {
        Path xdg = home.resolve("xdg");
        Path file = Files.createDirectories(xdg.resolve("fsp")).resolve("client.conf");
        Files.writeString(file, "");
        Files.createDirectories(home.resolve(".config/fsp"));
        Files.writeString(home.resolve(".config/fsp/client.conf"), "");
        assertEquals(Optional.of(file), ClientConfigOption.file(null, Map.of("XDG_CONFIG_HOME", xdg.toString()), home));
    }

    @Test
    void theEnvironmentVariableBeatsTheUsersFileAndTheOptionBeatsBoth() throws Exception {
        Files.createDirectories(home.resolve(".config/fsp"));
        Files.writeString(home.resolve(".config/fsp/client.conf"), "");
        Path named = home.resolve("named.conf");
        Path option = home.resolve("option.conf");
        Map<String, String> env = Map.of(ClientConfigOption.ENVIRONMENT, named.toString());
        assertEquals(Optional.of(named), ClientConfigOption.file(null, env, home), "named even before it exists");
        assertEquals(Optional.of(option), ClientConfigOption.file(option, env, home));
    }

    @Test
    void noneNamesNoFile() throws Exception {
        Files.createDirectories(home.resolve(".config/fsp"));
        Files.writeString(home.resolve(".config/fsp/client.conf"), "");
        assertEquals(Optional.empty(), ClientConfigOption.file(null, Map.of(ClientConfigOption.ENVIRONMENT, "none"), home));
        assertEquals(Optional.empty(), ClientConfigOption.file(Path.of("none"), Map.of(), home));
    }
}

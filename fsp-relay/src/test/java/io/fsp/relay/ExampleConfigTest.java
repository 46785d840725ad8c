package io.fsp.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.config.ConfigLoader;
import io.fsp.config.ConfigSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The shipped conf/relay.conf.example stays valid and documents every setting with its default. */
class ExampleConfigTest {
    private static final Path EXAMPLE = Path.of("..", "conf", "relay.conf.example");

    @Test
    void relayExampleLoadsToTheDefaults() {
        assertEquals(RelaySettings.defaults(), ConfigLoader.load(RelaySettings.defaults(), ConfigSource.read(EXAMPLE)));
    }

    @Test
    void relayExampleDocumentsEveryKey() throws Exception {
        String text = Files.readString(EXAMPLE);
        for (String key : ConfigLoader.keys(RelaySettings.class)) {
            assertTrue(Pattern.compile("(?m)^#? ?" + Pattern.quote(key) + " = ").matcher(text).find(), key + " is documented");
        }
    }
}

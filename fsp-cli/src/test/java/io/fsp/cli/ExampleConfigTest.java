package io.fsp.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.config.ConfigLoader;
import io.fsp.config.ConfigSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The shipped conf/client.conf.example stays valid and documents every setting with its default. */
class ExampleConfigTest {
    private static final Path EXAMPLE = Path.of("..", "conf", "client.conf.example");

    @Test
    void clientExampleLoadsToTheDefaults() {
        assertEquals(ClientSettings.defaults(), ConfigLoader.load(ClientSettings.defaults(), ConfigSource.read(EXAMPLE)));
    }

    @Test
    void clientExampleDocumentsEveryKey() throws Exception {
        String text = Files.readString(EXAMPLE);
        for (String key : ConfigLoader.keys(ClientSettings.class)) {
            assertTrue(Pattern.compile("(?m)^#? ?" + Pattern.quote(key) + " = ").matcher(text).find(), key + " is documented");
        }
    }

    /** A password is never configuration, nor is turning off the server's authentication. */
    @Test
    void noKeyHoldsAPasswordOrSkipsTheCertificateCheck() {
        List<String> keys = ConfigLoader.keys(ClientSettings.class);
        assertTrue(keys.contains("password-file"), keys.toString());
        assertFalse(keys.contains("password"), keys.toString());
        assertFalse(keys.contains("insecure"), keys.toString());
    }
}

package io.fsp.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.config.ConfigSource;
import io.fsp.config.Setting;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The shipped conf/relay.conf.example stays valid and documents every declared setting with its default. */
class ExampleConfigTest {
    private static final Path EXAMPLE = Path.of("..", "conf", "relay.conf.example");

    @Test
    void relayExampleLoadsToTheDefaults() {
        assertEquals(RelaySettings.defaults(), RelaySettings.ALL.load(ConfigSource.read(EXAMPLE)));
    }

    /** Each declared setting has its line; a line that sets it says its declared default. */
    @Test
    void relayExampleDocumentsEveryDeclaredSetting() throws Exception {
        String text = Files.readString(EXAMPLE);
        for (Setting s : RelaySettings.ALL.all()) {
            assertTrue(Pattern.compile("(?m)^#? ?" + Pattern.quote(s.key()) + " = ").matcher(text).find(),
                    s.key() + " is documented");
            Matcher set = Pattern.compile("(?m)^" + Pattern.quote(s.key()) + " = (.*)$").matcher(text);
            if (set.find()) {
                assertEquals(s.defaultValue(), set.group(1), s.key() + " set to its default");
            }
        }
    }
}

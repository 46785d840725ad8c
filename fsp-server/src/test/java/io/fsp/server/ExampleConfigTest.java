package io.fsp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.config.ConfigSource;
import io.fsp.config.Setting;
import io.fsp.server.auth.PasswordHasher;
import io.fsp.server.auth.UserAccount;
import io.fsp.server.auth.UserStore;
import io.fsp.server.config.ServerConfig;
import io.fsp.server.config.ServerSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The shipped examples in conf/ stay valid and document every setting with its default. */
class ExampleConfigTest {
    private static final Path CONF = Path.of("..", "conf");

    @Test
    void serverExampleLoadsToTheDefaults() {
        ServerConfig loaded = ServerSettings.ALL.load(ConfigSource.read(CONF.resolve("server.conf.example")));
        assertEquals(ServerConfig.defaults(), loaded);
    }

    /** Each declared setting has its line; a line that sets it says its declared default. */
    @Test
    void serverExampleDocumentsEveryDeclaredSetting() throws Exception {
        String text = Files.readString(CONF.resolve("server.conf.example"));
        for (Setting s : ServerSettings.ALL.all()) {
            assertTrue(Pattern.compile("(?m)^#? ?" + Pattern.quote(s.key()) + " = ").matcher(text).find(),
                    s.key() + " is documented");
            Matcher set = Pattern.compile("(?m)^" + Pattern.quote(s.key()) + " = (.*)$").matcher(text);
            if (set.find()) {
                assertEquals(s.defaultValue(), set.group(1), s.key() + " set to its default");
            }
        }
    }

    @Test
    void usersExampleParsesAndItsHashesVerify() throws Exception {
        List<UserAccount> users = UserStore.readFile(CONF.resolve("users.example"), Path.of("/srv/ftp"));
        assertEquals(List.of("alice", "bob"), users.stream().map(UserAccount::name).toList());
        assertTrue(users.get(0).writable());
        assertFalse(users.get(1).writable());
        assertEquals(Path.of("/srv/ftp/alice"), users.get(0).root());
        assertEquals(Path.of("/srv/ftp"), users.get(1).root());
        assertTrue(PasswordHasher.verify(users.get(0).passwordHash(), "example"));
    }
}

package io.fsp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A FRET of a tree holding a name the extension cannot carry (not a safe relative path: a backslash, a control
 * character) is refused before anything is announced, naming the entry, and the session serves on.
 */
class FretNamesTest {
    @TempDir
    Path dir;

    @Test
    void aNameThatIsNotASafeRelativePathIsRefusedBeforeAnythingIsAnnounced() throws Exception {
        Path root = Files.createDirectories(dir.resolve("root"));
        Files.write(Files.createDirectories(root.resolve("files")).resolve("a\\b.bin"), new byte[10]);
        Files.createDirectories(root.resolve("dirs").resolve("tab\there"));
        Files.write(root.resolve("fine.bin"), new byte[10]);
        try (FspServer server = TestServers.start(root, dir.resolve("state"), Map.of("allow-plain-login", List.of("true"),
                "fsp-without-tls", List.of("true")));
             RawControl ctl = new RawControl(server.addresses().get(0)).login()) {
            assertEquals("550 \"/files\": FILE name \"a\\b.bin\" contains a backslash (expected: / between segments)",
                    ctl.send("FRET files")); // the first reply: no 150 or 151 before it
            assertEquals("550 \"/dirs\": DIR name \"tab\\u0009here\" contains control character 9 (expected: none)",
                    ctl.send("FRET dirs"));
            assertTrue(ctl.send("NOOP").startsWith("200"), "the session serves on");
            String started = ctl.send("FRET fine.bin");
            assertTrue(started.startsWith("150"), started);
            for (String r = ctl.reply(); r == null || !r.startsWith("226"); r = ctl.reply()) {
                assertTrue(r != null && r.startsWith("151"), "after the 150: " + r);
            }
        }
    }
}

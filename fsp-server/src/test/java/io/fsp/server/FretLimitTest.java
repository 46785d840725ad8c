package io.fsp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A FRET of more blocks, or more files and directories, than max-blocks-per-transfer is answered at once, and the
 * session serves on.
 */
class FretLimitTest {
    @TempDir
    Path dir;

    @Test
    void aTransferOverTheBlockLimitIsRefusedBeforeAnythingIsAnnounced() throws Exception {
        Path root = Files.createDirectories(dir.resolve("root"));
        try (RandomAccessFile f = new RandomAccessFile(root.resolve("huge.bin").toFile(), "rw")) {
            f.setLength(1L << 40); // 1 TiB, sparse: no disk used
        }
        Files.write(root.resolve("small.bin"), new byte[10_000]);
        Path many = Files.createDirectories(root.resolve("many"));
        for (int i = 0; i < 1001; i++) {
            Files.createFile(many.resolve("empty-" + i)); // no blocks, but each a FILE line and state kept
        }
        try (FspServer server = TestServers.start(root, dir.resolve("state"), Map.of("allow-plain-login", List.of("true"),
                "fsp-without-tls", List.of("true"), "max-blocks-per-transfer", List.of("1000")));
             RawControl ctl = new RawControl(server.addresses().get(0)).login()) {
            assertTrue(ctl.send("FSPO block-size=4k").startsWith("200"));
            long start = System.nanoTime();
            String refused = ctl.send("FRET huge.bin"); // the first reply: no 150 or 151 before it
            double seconds = (System.nanoTime() - start) / 1e9;
            assertEquals("550 \"/huge.bin\": blocks: 268435456 of 4096 bytes (expected: <= 1000, the server's"
                    + " max-blocks-per-transfer; use a larger block-size)", refused);
            assertTrue(seconds < 10, "answered after " + seconds + " s");
            assertTrue(ctl.send("NOOP").startsWith("200"), "the session serves on");
            assertEquals("550 \"/many\": files and directories: more than 1000 (expected: <= 1000, the server's"
                    + " max-blocks-per-transfer)", ctl.send("FRET many"));
            // Under the limit the same session transfers: no relay, no data connection, so every block is origin.
            List<String> replies = new ArrayList<>();
            replies.add(ctl.send("FRET small.bin"));
            while (!replies.get(replies.size() - 1).startsWith("226")) {
                String r = ctl.reply();
                assertTrue(r != null && (r.startsWith("151") || r.startsWith("226")), replies + " then " + r);
                replies.add(r);
            }
            assertTrue(replies.get(0).startsWith("150") && replies.get(0).contains("3 blocks"), replies.get(0));
            assertEquals(3, replies.stream().filter(r -> r.startsWith("151 BLK ")).count(), replies.toString());
        }
    }
}

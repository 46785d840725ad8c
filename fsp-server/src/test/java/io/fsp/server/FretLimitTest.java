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

    /**
     * max-planned: a finished transfer kept for FGET gives its room to a new FRET (an FGET of it is then refused as
     * unknown); a FRET that needs more than a user's running transfers may hold (half the budget) is answered 450 at
     * once; the metrics say what the plans hold.
     */
    @Test
    void plansBeyondTheServersBudgetAreRefusedOrGiveUpKeptOnes() throws Exception {
        Path root = Files.createDirectories(dir.resolve("root"));
        Path tree = Files.createDirectories(root.resolve("tree"));
        for (int i = 0; i < 300; i++) {
            Files.write(tree.resolve("f" + i), new byte[] {(byte) i});
        }
        Path big = Files.createDirectories(root.resolve("big"));
        for (int i = 0; i < 700; i++) {
            Files.createFile(big.resolve("f" + i));
        }
        try (FspServer server = TestServers.start(root, dir.resolve("state"), Map.of("allow-plain-login", List.of("true"),
                "fsp-without-tls", List.of("true"), "max-planned", List.of("1200")));
             RawControl first = new RawControl(server.addresses().get(0)).login();
             RawControl second = new RawControl(server.addresses().get(0)).login()) {
            String refused = second.send("FRET big"); // 700 > 600, the user's half, however much is given up
            assertTrue(refused.startsWith("450 Server busy: ") && refused.contains("of the 600 one user may (half of"
                    + " max-planned)"), refused);
            assertTrue(second.send("NOOP").startsWith("200"), "the session serves on");

            String id = transferId(fretToTheEnd(first, "tree"));
            fretToTheEnd(first, "tree");
            String metrics = TestServers.metrics(server);
            assertTrue(metrics.contains("\nfsp_server_planned_entries_limit 1200.0\n"), metrics);
            // 300 files, taken from the budget 256 at a time; both kept for FGET after their 226
            assertTrue(metrics.contains("\nfsp_server_planned_entries 1024.0\n"), metrics);
            assertTrue(first.send("FGET " + id + " 0").startsWith("425"), "kept for FGET (no data connection yet)");

            fretToTheEnd(second, "tree"); // 1024 + 512 > 1200: the oldest finished transfer gives its room
            String unknown = first.send("FGET " + id + " 0");
            assertTrue(unknown.startsWith("550") && unknown.contains("unknown"), unknown);
            assertTrue(TestServers.metrics(server).contains("\nfsp_server_planned_entries 1024.0\n"), TestServers.metrics(server));
        }
    }

    /** The replies to FRET {@code path} up to its 226. */
    private static List<String> fretToTheEnd(RawControl ctl, String path) throws Exception {
        List<String> replies = new ArrayList<>();
        replies.add(ctl.send("FRET " + path));
        assertTrue(replies.get(0).startsWith("150"), replies.get(0));
        while (!replies.get(replies.size() - 1).startsWith("226")) {
            String r = ctl.reply();
            assertTrue(r != null && (r.startsWith("151") || r.startsWith("226")), replies + " then " + r);
            replies.add(r);
        }
        return replies;
    }

    private static String transferId(List<String> replies) {
        String fsp = replies.stream().filter(r -> r.startsWith("151 FSP ")).findFirst().orElseThrow();
        return fsp.split(" ")[2];
    }
}

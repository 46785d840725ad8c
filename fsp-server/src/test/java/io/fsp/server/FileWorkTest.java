package io.fsp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Logins and file work run on executors of their own, and reads of a whole file (the checksum commands) end
 * with ABOR or a disconnect: a real server on loopback whose every file thread hashes a 1 TiB sparse file,
 * which no test waits out.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FileWorkTest {
    /** {@code blocking-threads} of {@link TestServers}. */
    private static final int FILE_THREADS = 4;
    private static final long PROMPT_MILLIS = 5000;

    @TempDir
    static Path tmp;
    static FspServer server;

    @BeforeAll
    static void start() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("root"));
        try (RandomAccessFile huge = new RandomAccessFile(root.resolve("huge.bin").toFile(), "rw")) {
            huge.setLength(1L << 40);
        }
        Files.writeString(root.resolve("small.txt"), "small\n");
        server = TestServers.start(root, tmp.resolve("state"), Map.of("allow-plain-login", List.of("true")));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static RawControl connect() throws IOException {
        return new RawControl(server.addresses().get(0));
    }

    @Test
    void loginIsPromptWhileEveryFileThreadHashesAndADisconnectFreesThem() throws Exception {
        List<RawControl> hashing = new ArrayList<>();
        try {
            for (int i = 0; i < 2 * FILE_THREADS; i++) {
                RawControl c = connect().login();
                c.sendRaw("HASH huge.bin\r\n".getBytes(StandardCharsets.US_ASCII));
                hashing.add(c);
            }
            Thread.sleep(300); // the hashes run
            long start = System.nanoTime();
            try (RawControl c = connect().login()) {
                long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(millis < PROMPT_MILLIS, "login took " + millis + " ms while file threads were busy");
            }
        } finally {
            for (RawControl c : hashing) {
                c.close(); // the hashes stop with their connections
            }
        }
        try (RawControl c = connect().login()) {
            long start = System.nanoTime();
            String reply = c.send("HASH small.txt");
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(reply.startsWith("213 "), reply);
            assertTrue(millis < PROMPT_MILLIS, "file threads free again after the disconnects: HASH took " + millis + " ms");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"HASH huge.bin", "XSHA512 huge.bin", "CKSM ADLER32 0 -1 huge.bin",
        "XCRC \"huge.bin\" 1 1099511627776"})
    void aborStopsARunningChecksumAndTheSessionGoesOn(String checksum) throws Exception {
        try (RawControl c = connect().login()) {
            c.sendRaw((checksum + "\r\n").getBytes(StandardCharsets.US_ASCII));
            Thread.sleep(300);
            long start = System.nanoTime();
            c.sendRaw("ABOR\r\n".getBytes(StandardCharsets.US_ASCII));
            assertEquals("426", c.reply().substring(0, 3), checksum + " answered as aborted");
            assertEquals("226", c.reply().substring(0, 3), "ABOR successful");
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < PROMPT_MILLIS);
            assertTrue(c.send("NOOP").startsWith("200 "));
            // The stopped read lets go of its thread at once; until then a new one is refused with 450.
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PROMPT_MILLIS);
            String reply;
            while ((reply = c.send("HASH small.txt")).startsWith("450 ") && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(reply.startsWith("213 "), reply);
        }
    }
}

package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.ControlConnection;
import io.fsp.it.harness.Reply;
import io.fsp.it.harness.ServerProcess;
import io.fsp.it.harness.Transcript;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A command whose work fails with an error, not an exception, is still answered and the session goes on: a
 * server with a small heap is asked to stripe a 1 TiB sparse file in 4 KiB blocks, a plan it has no memory
 * for.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CommandFailureIT {
    private static final String USER = "alice";
    private static final String PASSWORD = "alice-secret";

    @TempDir
    Path base;

    @Test
    void outOfMemoryInACommandIsAnsweredAndTheSessionGoesOn() throws Exception {
        Path root = Files.createDirectory(base.resolve("root"));
        try (RandomAccessFile huge = new RandomAccessFile(root.resolve("huge.bin").toFile(), "rw")) {
            huge.setLength(1L << 40);
        }
        Transcript transcript = new Transcript();
        try (ServerProcess server = ServerProcess.start(root, List.of("--listen", "127.0.0.1:0", "--root", root.toString(),
                "--user", USER + ":" + PASSWORD, "--state-dir", base.resolve("state").toString(), "--allow-plain-login",
                "--fsp-without-tls"), 1, Map.of("JAVA_TOOL_OPTIONS", "-Xmx96m"));
             ControlConnection c = ControlConnection.login(server.ipv4(), USER, PASSWORD, transcript)) {
            c.send("FSPO block-size=4k").assertCode(200);
            Reply failed = c.send("FRET huge.bin");
            assertTrue(failed.code() >= 400 && failed.code() < 600, "FRET answered with a failure: " + failed
                    + "\n" + transcript + "\n" + server.output());
            c.send("NOOP").assertCode(200);
            try (ControlConnection other = ControlConnection.login(server.ipv4(), USER, PASSWORD, transcript)) {
                other.send("NOOP").assertCode(200);
            }
            assertTrue(server.isAlive());
        }
    }
}

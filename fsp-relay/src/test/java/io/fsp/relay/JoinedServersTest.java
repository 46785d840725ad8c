package io.fsp.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fsp.tls.Fingerprint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JoinedServersTest {
    private static final Fingerprint A = Fingerprint.parse("AA:" + "00:".repeat(30) + "01");
    private static final Fingerprint B = Fingerprint.parse("BB:" + "00:".repeat(30) + "02");

    @TempDir
    Path state;

    @Test
    void aJoinIsSeenByTheRunningRelayWithoutARestart() throws Exception {
        JoinedServers joined = new JoinedServers(state);
        assertEquals(Set.of(), joined.current());
        JoinedServers.add(state, A, "server-a:2121");
        assertEquals(Set.of(A), joined.current());
        JoinedServers.add(state, B, "server-b:2121");
        JoinedServers.add(state, A, "server-a:2121"); // again: one line
        // File times can be coarse: make the change visible as a later one.
        Files.setLastModifiedTime(state.resolve(JoinedServers.FILE), FileTime.from(Instant.now().plusSeconds(5)));
        assertEquals(Set.of(A, B), joined.current());
        assertEquals(3, Files.readAllLines(state.resolve(JoinedServers.FILE)).size(), "a comment and two servers");
    }
}

package io.fsp.client.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DestinationLockTest {
    @TempDir
    Path dir;

    @Test
    void oneHolderAtATimeAndTheFileGoesWithIt() throws Exception {
        Path file = dir.resolve("sub/.x.fsp-lock");
        try (DestinationLock held = DestinationLock.take(file, "collecting /x from s")) {
            String text = Files.readString(file);
            assertTrue(text.startsWith("pid " + ProcessHandle.current().pid() + ", collecting /x from s, since "), text);
            DestinationLock.DestinationBusyException e = assertThrows(DestinationLock.DestinationBusyException.class,
                    () -> DestinationLock.take(file, "another"));
            assertTrue(e.getMessage().contains("pid " + ProcessHandle.current().pid() + ", collecting /x from s"), e.getMessage());
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
            assertEquals(text, Files.readString(file), "a refused run leaves the holder's lock alone");
        }
        assertFalse(Files.exists(file), "removed by its holder");
        DestinationLock.take(file, "again").close();
    }

    /** Another process holds it (util-linux flock(1): flock(2) as the client takes it); once it is killed, a run takes it. */
    @Test
    void anotherProcessHoldsItUntilItEnds() throws Exception {
        Path file = dir.resolve(".y.fsp-lock");
        Process other = new ProcessBuilder("flock", "--exclusive", "--close", file.toString(), "sleep", "60").start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!Files.exists(file) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            Thread.sleep(200); // flock(1) creates the file, then locks it
            DestinationLock.DestinationBusyException e = assertThrows(DestinationLock.DestinationBusyException.class,
                    () -> DestinationLock.take(file, "mine"));
            assertTrue(e.getMessage().contains("another run"), e.getMessage());
        } finally {
            other.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        // the killed holder left its file behind, unlocked: it blocks nothing
        assertTrue(Files.exists(file));
        try (DestinationLock mine = DestinationLock.take(file, "mine")) {
            assertTrue(Files.readString(file).contains("mine"));
        }
        assertFalse(Files.exists(file));
    }

    @Test
    void aSymbolicLinkAtTheNameIsNotFollowed() throws Exception {
        Path target = dir.resolve("elsewhere");
        Files.writeString(target, "keep");
        Path file = dir.resolve(".z.fsp-lock");
        Files.createSymbolicLink(file, target);
        assertThrows(java.io.IOException.class, () -> DestinationLock.take(file, "mine"));
        assertEquals("keep", Files.readString(target));
    }
}

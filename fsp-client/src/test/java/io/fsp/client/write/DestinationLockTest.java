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

    /**
     * A lock file another local user made beforehand (writable by all, to hold or swap later) is refused, not shared;
     * {@link DestinationLock#check} sees a held lock without taking it. Needs root, to make a file nobody's.
     */
    @Test
    void aLockFileOfAnotherUserIsRefused() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(ProcessUser.principal() != null
                && ProcessUser.principal().getName().equals("root"), "runs as root");
        Path file = dir.resolve(".w.fsp-lock");
        Files.writeString(file, "");
        Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-rw-"));
        Files.setOwner(file, dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody"));
        DestinationException e = assertThrows(DestinationException.class, () -> DestinationLock.take(file, "mine"));
        assertTrue(e.getMessage().contains("belongs to nobody"), e.getMessage());
        Files.delete(file);

        Path mine = dir.resolve(".v.fsp-lock");
        DestinationLock.check(mine); // no file: free, and none made
        assertFalse(Files.exists(mine));
        try (DestinationLock held = DestinationLock.take(mine, "collecting")) {
            assertThrows(DestinationLock.DestinationBusyException.class, () -> DestinationLock.check(mine));
        }
        DestinationLock.check(mine);
    }

    /** The atomic writer never writes through, nor renames, a link someone put at a temporary name. */
    @Test
    void theAtomicWriterFollowsNoLinkBesideItsFile() throws Exception {
        Path outside = Files.writeString(dir.resolve("outside.txt"), "keep");
        Path target = dir.resolve("m.txt");
        Files.createSymbolicLink(dir.resolve(".m.txt.part"), outside);
        AtomicFileWriter.write(target, "new".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertEquals("new", Files.readString(target));
        assertFalse(Files.isSymbolicLink(target));
        assertEquals("keep", Files.readString(outside));
    }
}

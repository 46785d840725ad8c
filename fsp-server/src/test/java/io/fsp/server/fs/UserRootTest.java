package io.fsp.server.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UserRootTest {
    @TempDir
    Path tmp;
    Path rootDir;
    Path outside;
    UserRoot root;

    @BeforeEach
    void setUp() throws IOException {
        rootDir = Files.createDirectories(tmp.resolve("root"));
        outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "secret");
        Files.createDirectories(rootDir.resolve("pub/sub"));
        Files.writeString(rootDir.resolve("pub/file.txt"), "ok");
        Files.createSymbolicLink(rootDir.resolve("escape"), outside);
        Files.createSymbolicLink(rootDir.resolve("escape-file"), outside.resolve("secret.txt"));
        Files.createSymbolicLink(rootDir.resolve("pub/up"), rootDir.resolve("pub/sub"));
        Files.createSymbolicLink(rootDir.resolve("pub/relative-escape"), Path.of("../../outside/secret.txt"));
        Files.createSymbolicLink(rootDir.resolve("dangling"), rootDir.resolve("nowhere"));
        root = new UserRoot(rootDir);
    }

    private FtpPath path(String p) throws PathEscapeException {
        return FtpPath.ROOT.resolve(p);
    }

    @Test
    void resolvesPlainPathsInsideRoot() throws IOException {
        assertEquals(rootDir.toRealPath().resolve("pub/file.txt"), root.resolve(path("/pub/file.txt")));
        assertEquals(rootDir.toRealPath().resolve("pub/new.txt"), root.resolve(path("pub/new.txt")));
    }

    @Test
    void dotDotStopsAtTheRoot() throws IOException {
        assertEquals(FtpPath.ROOT, path("../../.."));
        assertEquals("/etc/passwd", path("/../../etc/passwd").toString());
        assertEquals(rootDir.toRealPath().resolve("etc/passwd"), root.resolve(path("../../etc/passwd")));
        assertEquals("/pub", FtpPath.ROOT.resolve("pub/sub/../../pub").toString());
    }

    @Test
    void absolutePathsStartAtTheUsersRoot() throws IOException {
        assertTrue(root.resolve(path(outside.resolve("secret.txt").toString())).startsWith(rootDir.toRealPath()));
    }

    @Test
    void followsLinksThatStayInside() throws IOException {
        assertEquals(rootDir.toRealPath().resolve("pub/sub"), root.resolve(path("/pub/up")));
    }

    @Test
    void refusesLinksThatLeave() {
        assertThrows(PathEscapeException.class, () -> root.resolve(path("/escape")));
        assertThrows(PathEscapeException.class, () -> root.resolve(path("/escape/secret.txt")));
        assertThrows(PathEscapeException.class, () -> root.resolve(path("/escape-file")));
        assertThrows(PathEscapeException.class, () -> root.resolve(path("/pub/relative-escape")));
    }

    @Test
    void danglingLinkIsNotFound() {
        assertThrows(NoSuchFileException.class, () -> root.resolve(path("/dangling")));
    }

    @Test
    void entryResolutionDoesNotFollowTheLastLink() throws IOException {
        // DELE escape-file must remove the link, not the file it points to.
        try (UserRoot.Entry e = root.entry(path("/escape-file"))) {
            assertEquals(rootDir.toRealPath(), e.dir().path());
            assertEquals("escape-file", e.name());
            assertTrue(e.dir().existing(e.name()).isSymbolicLink());
        }
        assertThrows(PathEscapeException.class, () -> root.entry(path("/escape/secret.txt")));
    }

    @Test
    void refusesNul() {
        assertThrows(PathEscapeException.class, () -> path("a\0b"));
    }

    @Test
    void listingLeavesOutLinksThatLeave() throws IOException {
        var names = ListingFormatter.read(root, FtpPath.ROOT).stream().map(DirectoryEntry::name).toList();
        assertEquals(java.util.List.of("pub"), names);
        var pub = ListingFormatter.read(root, path("/pub")).stream().map(DirectoryEntry::name).toList();
        assertEquals(java.util.List.of("file.txt", "sub", "up"), pub);
    }

    @Test
    void listingHidesPartialUploads() throws IOException {
        Files.writeString(rootDir.resolve(UploadNames.partialName("x.bin")), "partial");
        var names = ListingFormatter.read(root, FtpPath.ROOT).stream().map(DirectoryEntry::name).toList();
        assertEquals(java.util.List.of("pub"), names);
    }
}

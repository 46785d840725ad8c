package io.fsp.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.server.config.ServerConfig;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.commons.net.ftp.FTP;
import org.apache.commons.net.ftp.FTPClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A local user races the server: a directory of the path a command names is swapped for a link to outside
 * the root between the server's check and its use, FIFOs stand where files are expected. Real server on
 * loopback, Commons Net and raw control connections.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FileRaceTest {
    private static final byte[] SECRET = "OUTSIDE-SECRET-".repeat(64).getBytes(StandardCharsets.US_ASCII);

    @TempDir
    static Path tmp;
    static Path root;
    static Path outside;
    static FspServer server;

    /** {@code root/swap} is a directory or a link to {@code outside}, changing as fast as the swapper can. */
    Path swap;
    Thread swapper;
    final AtomicBoolean swapping = new AtomicBoolean();

    @BeforeAll
    static void start() throws Exception {
        root = Files.createDirectories(tmp.resolve("root"));
        outside = Files.createDirectories(tmp.resolve("outside"));
        server = TestServers.start(root, tmp.resolve("state"), Map.of("allow-plain-login", List.of("true")));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void prepare() throws IOException {
        swap = root.resolve("swap");
        Files.createDirectories(swap);
        Files.write(swap.resolve("data.bin"), "inside\n".repeat(200).getBytes(StandardCharsets.US_ASCII));
        Files.write(outside.resolve("data.bin"), SECRET);
        Files.createSymbolicLink(root.resolve("swap.link"), outside);
    }

    @AfterEach
    void stopSwapping() throws Exception {
        swapping.set(false);
        if (swapper != null) {
            swapper.join();
            swapper = null;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                if (!p.equals(root)) {
                    Files.delete(p);
                }
            }
        }
        try (Stream<Path> all = Files.list(outside)) {
            for (Path p : all.toList()) {
                Files.delete(p);
            }
        }
    }

    /** Swaps {@code root/swap} between the directory and the link, by renames, until stopped. */
    void startSwapping() {
        swapping.set(true);
        swapper = new Thread(() -> {
            Path real = root.resolve("swap.real");
            Path link = root.resolve("swap.link");
            try {
                while (swapping.get()) {
                    Files.move(swap, real, StandardCopyOption.ATOMIC_MOVE);
                    Files.move(link, swap, StandardCopyOption.ATOMIC_MOVE);
                    Thread.onSpinWait();
                    Files.move(swap, link, StandardCopyOption.ATOMIC_MOVE);
                    Files.move(real, swap, StandardCopyOption.ATOMIC_MOVE);
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }, "swapper");
        swapper.start();
    }

    static FTPClient client() throws IOException {
        return client(server);
    }

    static FTPClient client(FspServer server) throws IOException {
        FTPClient c = new FTPClient();
        c.setControlEncoding("UTF-8");
        c.setDefaultTimeout(10_000);
        c.setDataTimeout(java.time.Duration.ofSeconds(10));
        c.connect(server.addresses().get(0).getAddress(), server.addresses().get(0).getPort());
        assertTrue(c.login("alice", "secret"), c.getReplyString());
        assertTrue(c.setFileType(FTP.BINARY_FILE_TYPE));
        c.enterLocalPassiveMode();
        return c;
    }

    static boolean contains(byte[] haystack, byte[] needle) {
        String h = new String(haystack, StandardCharsets.ISO_8859_1);
        return h.contains(new String(needle, 0, 15, StandardCharsets.ISO_8859_1));
    }

    static final long RACE_MILLIS = 4000;

    @Test
    void retrNeverSendsAByteFromOutsideWhileADirectoryIsSwappedForALink() throws Exception {
        FTPClient c = client();
        startSwapping();
        int served = 0;
        int tries = 0;
        long end = System.currentTimeMillis() + RACE_MILLIS;
        while (System.currentTimeMillis() < end) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            tries++;
            if (c.retrieveFile("swap/data.bin", out)) {
                served++;
            }
            assertFalse(contains(out.toByteArray(), SECRET), "RETR " + tries + " sent the file outside the root");
        }
        assertTrue(served > 0, "no RETR got through at all in " + tries + " tries: the test proves nothing");
        assertTrue(c.sendNoOp());
        c.disconnect();
    }

    @Test
    void storAndAppeNeverWriteOutsideWhileADirectoryIsSwappedForALink() throws Exception {
        FTPClient c = client();
        startSwapping();
        int stored = 0;
        long end = System.currentTimeMillis() + RACE_MILLIS;
        for (int i = 0; System.currentTimeMillis() < end; i++) {
            byte[] body = ("upload " + i + "\n").getBytes(StandardCharsets.US_ASCII);
            boolean ok = i % 2 == 0
                    ? c.appendFile("swap/data.bin", new ByteArrayInputStream(body))
                    : c.storeFile("swap/new-" + i + ".bin", new ByteArrayInputStream(body));
            if (ok) {
                stored++;
            }
            assertArrayEquals(SECRET, Files.readAllBytes(outside.resolve("data.bin")), "APPE wrote outside the root");
            try (Stream<Path> out = Files.list(outside)) {
                assertEquals(List.of(outside.resolve("data.bin")), out.toList(), "STOR created a file outside the root");
            }
        }
        assertTrue(stored > 0, "no upload got through at all: the test proves nothing");
        c.disconnect();
    }

    @Test
    void renameNeverMovesFilesAcrossTheRootWhileADirectoryIsSwappedForALink() throws Exception {
        FTPClient c = client();
        startSwapping();
        int renamed = 0;
        long end = System.currentTimeMillis() + RACE_MILLIS;
        while (System.currentTimeMillis() < end) {
            if (c.rename("swap/data.bin", "/moved.bin")) {
                renamed++;
                assertTrue(Files.exists(outside.resolve("data.bin")), "RNTO moved a file from outside into the root");
                for (int back = 0; !c.rename("/moved.bin", "swap/data.bin"); back++) {
                    assertTrue(back < 10_000, "cannot move the file back: " + c.getReplyString());
                }
            }
            assertArrayEquals(SECRET, Files.readAllBytes(outside.resolve("data.bin")), "a file was moved outside the root");
        }
        assertTrue(renamed > 0, "no rename got through at all: the test proves nothing");
        c.disconnect();
    }

    @Test
    void listingsNeverShowWhatIsOutsideWhileADirectoryIsSwappedForALink() throws Exception {
        Files.writeString(outside.resolve("outside-only.txt"), "x");
        FTPClient c = client();
        startSwapping();
        int listed = 0;
        long end = System.currentTimeMillis() + RACE_MILLIS;
        for (int i = 0; System.currentTimeMillis() < end; i++) {
            String[] names = switch (i % 3) {
                case 0 -> c.listNames("swap");
                case 1 -> java.util.Arrays.stream(c.mlistDir("swap")).map(f -> f.getName()).toArray(String[]::new);
                default -> java.util.Arrays.stream(c.listFiles("swap")).map(f -> f == null ? "" : f.getName())
                        .toArray(String[]::new);
            };
            if (names != null && names.length > 0) {
                listed++;
                assertFalse(String.join(" ", names).contains("outside-only"), "a listing showed a directory outside the root");
            }
            for (String verb : List.of("SIZE", "MDTM", "STAT", "MLST")) {
                int code = c.sendCommand(verb, "swap/outside-only.txt");
                assertTrue(code >= 500, verb + " answered about a file outside the root: " + c.getReplyString());
            }
        }
        assertTrue(listed > 0, "no listing got through at all: the test proves nothing");
        c.disconnect();
    }

    /**
     * The last step of a STOR, renaming the part file into place, comes long after the check: a directory
     * swapped for a link to outside meanwhile, with a file of the part file's name there, must not make the
     * server rename outside files.
     */
    @Test
    void storRenamesItsPartFileIntoTheDirectoryItCheckedNotThroughALinkSwappedInLater() throws Exception {
        try (RawControl control = new RawControl(server.addresses().get(0)).login()) {
            int port = control.epsv();
            control.sendRaw("STOR swap/late.bin\r\n".getBytes(StandardCharsets.US_ASCII));
            try (Socket data = new Socket("127.0.0.1", port)) {
                assertTrue(control.reply().startsWith("150"));
                OutputStream out = data.getOutputStream();
                out.write("uploaded".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                Path part = waitForPartFile(swap);
                Files.move(swap, root.resolve("swap.real"));
                Files.move(root.resolve("swap.link"), swap); // now root/swap -> outside
                Files.write(outside.resolve(part.getFileName()), SECRET);
            }
            String reply = control.reply();
            assertFalse(Files.exists(outside.resolve("late.bin")), "the server renamed a file outside the root: " + reply);
            assertTrue(reply.startsWith("226"), reply);
            assertEquals("uploaded", Files.readString(root.resolve("swap.real/late.bin")));
        }
    }

    static Path waitForPartFile(Path dir) throws Exception {
        for (int i = 0; i < 500; i++) {
            try (Stream<Path> s = Files.list(dir)) {
                var part = s.filter(p -> p.getFileName().toString().contains(".fsp-part-")).findFirst();
                if (part.isPresent()) {
                    return part.get();
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no part file in " + dir);
    }

    @Test
    void fifosAreRefusedPromptlyAndTheSessionGoesOn() throws Exception {
        Path fifo = swap.resolve("pipe");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertEquals(0, mkfifo.waitFor());
        FTPClient c = client();
        c.setDataTimeout(java.time.Duration.ofSeconds(5));
        assertFalse(c.retrieveFile("swap/pipe", OutputStream.nullOutputStream()));
        assertEquals(550, c.getReplyCode(), c.getReplyString());
        assertFalse(c.appendFile("swap/pipe", new ByteArrayInputStream(new byte[] {1})));
        assertEquals(550, c.getReplyCode(), c.getReplyString());
        assertFalse(c.storeFile("swap/pipe", new ByteArrayInputStream(new byte[] {1})));
        assertEquals(550, c.getReplyCode(), c.getReplyString());
        c.setRestartOffset(0);
        assertTrue(c.sendNoOp());
        assertTrue(Files.readAttributes(fifo, java.nio.file.attribute.BasicFileAttributes.class,
                java.nio.file.LinkOption.NOFOLLOW_LINKS).isOther(), "the FIFO is left alone");
        assertArrayEquals(Files.readAllBytes(swap.resolve("data.bin")), retrieve(c, "swap/data.bin"));
        c.disconnect();
    }

    static byte[] retrieve(FTPClient c, String name) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertTrue(c.retrieveFile(name, out), c.getReplyString());
        return out.toByteArray();
    }

    /** docs/protocol.md §1.3: a link is followed when its real target is inside the root. */
    @Test
    void linksInsideTheRootAreStillFollowed() throws Exception {
        Files.createDirectories(root.resolve("pub"));
        Files.writeString(root.resolve("pub/file.txt"), "public");
        Files.createSymbolicLink(root.resolve("alias"), Path.of("pub"));
        Files.createSymbolicLink(root.resolve("file-link"), root.resolve("pub/file.txt"));
        FTPClient c = client();
        assertEquals("public", new String(retrieve(c, "alias/file.txt"), StandardCharsets.UTF_8));
        assertEquals("public", new String(retrieve(c, "file-link"), StandardCharsets.UTF_8));
        assertTrue(c.appendFile("file-link", new ByteArrayInputStream("+".getBytes(StandardCharsets.UTF_8))));
        assertEquals("public+", Files.readString(root.resolve("pub/file.txt")));
        assertTrue(Files.isSymbolicLink(root.resolve("file-link")));
        assertTrue(c.storeFile("alias/new.txt", new ByteArrayInputStream("new".getBytes(StandardCharsets.UTF_8))));
        assertEquals("new", Files.readString(root.resolve("pub/new.txt")));
        assertTrue(c.makeDirectory("alias/sub"), c.getReplyString());
        assertTrue(Files.isDirectory(root.resolve("pub/sub")));
        assertTrue(c.rename("alias/new.txt", "alias/sub/renamed.txt"), c.getReplyString());
        assertEquals("new", Files.readString(root.resolve("pub/sub/renamed.txt")));
        assertTrue(c.deleteFile("alias/sub/renamed.txt"));
        assertTrue(c.removeDirectory("alias/sub"));
        assertTrue(c.deleteFile("file-link"), "DELE removes the link itself");
        assertTrue(Files.exists(root.resolve("pub/file.txt")));
        c.disconnect();
    }

    /** An escaping link moved by RNFR/RNTO into the place of a directory is still never followed. */
    @Test
    void anEscapingLinkRenamedIntoPlaceIsNotFollowed() throws Exception {
        FTPClient c = client();
        assertTrue(c.rename("swap", "swap.old"), c.getReplyString());
        assertTrue(c.rename("swap.link", "swap"), c.getReplyString());
        assertTrue(Files.isSymbolicLink(swap));
        assertFalse(c.retrieveFile("swap/data.bin", OutputStream.nullOutputStream()));
        assertEquals(550, c.getReplyCode());
        assertFalse(c.storeFile("swap/x.bin", new ByteArrayInputStream(new byte[] {1})));
        assertEquals(550, c.getReplyCode());
        assertFalse(c.makeDirectory("swap/newdir"));
        assertFalse(c.deleteFile("swap/data.bin"));
        assertFalse(c.rename("swap/data.bin", "stolen.bin"));
        assertArrayEquals(SECRET, Files.readAllBytes(outside.resolve("data.bin")));
        try (Stream<Path> out = Files.list(outside)) {
            assertEquals(1, out.count());
        }
        c.disconnect();
    }

    @Test
    void uploadsAreStoredWithFsyncOnAndOff(@TempDir Path state) throws Exception {
        assertTrue(ServerConfig.defaults().ftpCore().fsyncUploads(), "on by default");
        byte[] body = new byte[300_000];
        new java.util.Random(7).nextBytes(body);
        try (FspServer noSync = TestServers.start(root, state, Map.of("allow-plain-login", List.of("true"),
                "fsync-uploads", List.of("false")))) {
            for (FspServer s : List.of(server, noSync)) {
                FTPClient c = client(s);
                assertTrue(c.storeFile("synced.bin", new ByteArrayInputStream(body)));
                assertArrayEquals(body, Files.readAllBytes(root.resolve("synced.bin")));
                assertTrue(c.appendFile("synced.bin", new ByteArrayInputStream(body)));
                assertEquals(2L * body.length, Files.size(root.resolve("synced.bin")));
                assertTrue(c.storeUniqueFile("synced.bin", new ByteArrayInputStream(body)));
                c.disconnect();
            }
        }
    }
}

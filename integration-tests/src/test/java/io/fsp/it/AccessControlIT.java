package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.it.harness.ControlConnection;
import io.fsp.it.harness.FtpServerExtension;
import io.fsp.it.harness.TestTree;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Accounts from a users file (Argon2id hashes, read-only and read-write, own roots) and
 * {@code --anonymous}: read-only accounts read but change nothing, each account sees only its root.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AccessControlIT {
    /** The Argon2id hash of "example" from conf/users.example. */
    private static final String EXAMPLE_HASH =
            "$argon2id$v=19$m=19456,t=2,p=1$vKNH+Mi5gXD85nej5kElAg$JXy2YNSYxXc4VvSJjEd4p0HlgWO8q41eWP+sOs4rl78";
    private static final Path USERS_FILE = usersFile();

    @RegisterExtension
    static final FtpServerExtension SERVER = FtpServerExtension.plainLoginAllowed()
            .with("--users-file", USERS_FILE.toString(), "--anonymous");

    private static Path usersFile() {
        try {
            Path dir = Files.createTempDirectory("fsp-it-users-");
            Files.createDirectory(dir.resolve("carol-root"));
            return Files.writeString(dir.resolve("users"), String.join("\n",
                    "# test accounts, all with the password \"example\"",
                    "bob    read-only   " + EXAMPLE_HASH,
                    "carol  read-write  " + EXAMPLE_HASH + "  carol-root",
                    ""));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @AfterAll
    static void deleteUsersFile() throws IOException {
        Path dir = USERS_FILE.getParent();
        Files.deleteIfExists(USERS_FILE);
        Files.deleteIfExists(dir.resolve("carol-root"));
        Files.deleteIfExists(dir);
    }

    private ControlConnection login(String user, String password) throws IOException {
        return ControlConnection.login(SERVER.server().ipv4(), user, password, SERVER.transcript());
    }

    @ParameterizedTest
    @ValueSource(strings = {"bob", "anonymous", "ftp"})
    void readOnlyAccountsReadButChangeNothing(String user) throws Exception {
        Path dir = SERVER.tree().dir("ro-" + user);
        byte[] data = "read me\n".getBytes(StandardCharsets.US_ASCII);
        TestTree.write(dir.resolve("file.txt"), data);
        Files.createDirectory(dir.resolve("sub"));
        String password = user.equals("bob") ? "example" : "guest@example.org";
        try (ControlConnection c = login(user, password)) {
            String base = "/ro-" + user;
            c.send("TYPE I").assertCode(200);
            assertArrayEquals(data, retrieve(c, base + "/file.txt"));
            c.send("SIZE " + base + "/file.txt").assertCode(213);
            c.send("CWD " + base).assertCode(250);
            for (String verb : List.of("STOR new.txt", "APPE file.txt", "STOU")) {
                // a data connection is ready, so only the account's rights can refuse the upload
                Socket data2 = ControlConnection.openData(c.passive());
                try {
                    c.send(verb).assertCodeIn(550, 553, 532, 450);
                } finally {
                    data2.close();
                }
            }
            c.send("DELE file.txt").assertCodeIn(550, 553, 532);
            c.send("MKD made").assertCodeIn(550, 553, 532);
            c.send("RMD sub").assertCodeIn(550, 553, 532);
            c.send("RNFR file.txt").assertCodeIn(550, 553, 532);
            c.send("NOOP").assertCode(200);
        }
        try (var entries = Files.list(dir)) {
            assertEquals(List.of("file.txt", "sub"), entries.map(p -> p.getFileName().toString()).sorted().toList());
        }
        assertArrayEquals(data, Files.readAllBytes(dir.resolve("file.txt")));
    }

    @Test
    void wrongPasswordFromUsersFileIsRefused() throws Exception {
        try (ControlConnection c = ControlConnection.open(SERVER.server().ipv4(), SERVER.transcript())) {
            c.send("USER bob").assertCode(331);
            c.send("PASS not-example").assertCode(530);
            c.send("PWD").assertCode(530);
        }
    }

    @Test
    void accountWithOwnRootSeesOnlyThatRoot() throws Exception {
        Path carolRoot = USERS_FILE.resolveSibling("carol-root");
        TestTree.write(SERVER.tree().root().resolve("alice-only.txt"), "alice".getBytes(StandardCharsets.US_ASCII));
        try (ControlConnection c = login("carol", "example")) {
            c.send("SIZE /alice-only.txt").assertCode(550);
            c.send("MKD /mine").assertCode(257);
            c.send("CWD /..").assertCodeIn(250, 550);
            assertTrue(c.send("PWD").assertCode(257).text().contains("\"/\""));
        }
        assertTrue(Files.isDirectory(carolRoot.resolve("mine")), "carol's MKD landed in her root");
        assertFalse(Files.exists(SERVER.tree().root().resolve("mine")));
        Files.delete(carolRoot.resolve("mine"));
    }

    private static byte[] retrieve(ControlConnection c, String path) throws IOException {
        InetSocketAddress address = c.passive();
        byte[] bytes;
        try (Socket data = ControlConnection.openData(address)) {
            c.sendLine("RETR " + path);
            c.readReply().assertCodeIn(125, 150);
            bytes = data.getInputStream().readAllBytes();
        }
        c.readReply().assertCode(226);
        return bytes;
    }
}

package io.fsp.cli;

import static io.fsp.cli.FspRun.fsp;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.client.control.ControlException;
import java.net.ServerSocket;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * How {@code fsp get}, {@code evacuate} and {@code collect} talk to their user: the address in a network error, no
 * resume hint where a rerun cannot help, the password prompt, --quiet/--verbose, the exit codes in the help.
 */
class ClientMannersTest {
    /** Password files only their owner may read: the client refuses others. */
    private static final FileAttribute<?> OWNER_ONLY = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    @TempDir
    Path dir;

    /** A port on this host nothing listens on (bound, then closed). */
    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void aRefusedConnectionNamesTheAddressAndGivesNoResumeHint() throws Exception {
        int port = closedPort();
        Path password = Files.writeString(Files.createFile(dir.resolve("password"), OWNER_ONLY), "pw\n");
        FspRun run = fsp("get", "fsp://alice@127.0.0.1:" + port + "/data", "-o", dir.resolve("out").toString(),
                "--config", "none", "--insecure", "--password-file", password.toString());
        assertEquals(ExitCodes.FAILURE, run.exit(), run.err());
        assertTrue(run.err().contains("127.0.0.1:" + port + ": connection refused"), run.err());
        assertFalse(run.err().contains("rerun"), "a rerun cannot help where nothing listens: " + run.err());
    }

    /**
     * A password file its group or others may read is refused before anything is read or sent, as ssh refuses such
     * a key: a usage error that says how to fix it. The same file, made owner-only, is taken.
     */
    @Test
    void aPasswordFileOthersCanReadIsRefused() throws Exception {
        int port = closedPort();
        Path password = Files.writeString(dir.resolve("password"), "pw\n");
        for (String mode : List.of("rw-r--r--", "rw-r-----", "rw-----w-")) {
            Files.setPosixFilePermissions(password, PosixFilePermissions.fromString(mode));
            for (String[] command : List.of(
                    new String[] {"get", "fsp://alice@127.0.0.1:" + port + "/data", "-o", dir.resolve("out").toString(),
                        "--config", "none", "--insecure", "--password-file", password.toString()},
                    new String[] {"evacuate", "fsp://alice@127.0.0.1:" + port + "/data", "--trust", "AB:" + "00:".repeat(30) + "CD",
                        "--config", "none", "--dry-run", "--password-file", password.toString()})) {
                FspRun run = fsp(command);
                assertEquals(ExitCodes.USAGE, run.exit(), command[0] + " " + mode + ": " + run.err());
                assertTrue(run.err().contains("--password-file " + password + ": open to its group or others (" + mode + ")")
                        && run.err().contains("chmod 600 " + password), run.err());
                assertFalse(run.err().contains("connection refused"), "refused before connecting: " + run.err());
            }
        }
        Files.setPosixFilePermissions(password, PosixFilePermissions.fromString("rw-------"));
        FspRun run = fsp("get", "fsp://alice@127.0.0.1:" + port + "/data", "-o", dir.resolve("out").toString(),
                "--config", "none", "--insecure", "--password-file", password.toString());
        assertEquals(ExitCodes.FAILURE, run.exit(), run.err());
        assertTrue(run.err().contains("connection refused"), "taken, then the connection tried: " + run.err());
    }

    /** A server that greets and then drops the connection: an interruption, where a rerun may go through. */
    @Test
    void aConnectionDroppedByTheServerKeepsTheResumeHint() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Thread peer = new Thread(() -> {
                try (java.net.Socket s = server.accept()) {
                    s.getOutputStream().write("220 ready\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    int b;
                    do { // AUTH TLS arrives, read whole (no reset); the connection is dropped instead of answered
                        b = s.getInputStream().read();
                    } while (b != '\n' && b != -1);
                } catch (java.io.IOException ignored) {
                    // the client's side is what is tested
                }
            });
            peer.start();
            Path password = Files.writeString(Files.createFile(dir.resolve("password"), OWNER_ONLY), "pw\n");
            FspRun run = fsp("get", "fsp://alice@127.0.0.1:" + server.getLocalPort() + "/data", "-o",
                    dir.resolve("out").toString(), "--config", "none", "--insecure", "--password-file", password.toString());
            peer.join(10_000);
            assertEquals(ExitCodes.FAILURE, run.exit(), run.err());
            assertTrue(run.err().contains("127.0.0.1:" + server.getLocalPort() + ": control connection closed"), run.err());
            assertTrue(run.err().contains(Rerun.HINT), run.err());
        }
    }

    @Test
    void anEvacuationToAClosedPortNamesTheAddress() throws Exception {
        int port = closedPort();
        Path password = Files.writeString(Files.createFile(dir.resolve("password"), OWNER_ONLY), "pw\n");
        FspRun run = fsp("evacuate", "fsp://alice@127.0.0.1:" + port + "/data", "--dry-run", "--config", "none",
                "--trust", "AB:" + "00:".repeat(30) + "CD", "--password-file", password.toString());
        assertEquals(ExitCodes.FAILURE, run.exit(), run.err());
        assertTrue(run.err().contains("127.0.0.1:" + port + ": connection refused"), run.err());
    }

    @ParameterizedTest
    @ValueSource(strings = {"get", "evacuate", "collect", "transfer"})
    void quietAndVerboseExcludeEachOther(String command) {
        List<String> args = new ArrayList<>(List.of(command, "--quiet", "--verbose", "x"));
        args.addAll(switch (command) {
            case "evacuate" -> List.of("--dry-run");
            case "transfer" -> List.of("y", "--trust", "AB:" + "00:".repeat(30) + "CD");
            case "collect" -> List.of("-o", dir.resolve("out").toString(), "--identity", dir.resolve("id").toString());
            default -> List.of("-o", dir.resolve("out").toString());
        });
        FspRun run = fsp(args.toArray(String[]::new));
        assertEquals(ExitCodes.USAGE, run.exit(), run.err());
        assertTrue(run.err().contains("mutually exclusive"), run.err());
    }

    @ParameterizedTest
    @ValueSource(strings = {"get", "evacuate", "collect", "transfer"})
    void theHelpListsTheExitCodesFromExitCodes(String command) {
        FspRun run = fsp(command, "--help");
        assertEquals(ExitCodes.OK, run.exit());
        String help = run.out().replaceAll("\\s+", " ");
        List<String> expected = new ArrayList<>(List.of(ExitCodes.FAILURE_HELP, ExitCodes.USAGE_HELP, ExitCodes.INTERNAL_HELP));
        expected.add(switch (command) {
            case "evacuate" -> ExitCodes.PARTIAL_EVACUATE_HELP;
            case "transfer" -> ExitCodes.TRANSFER_UNVERIFIED_HELP;
            default -> ExitCodes.VERIFICATION_FAILED_HELP;
        });
        if (command.equals("transfer")) {
            expected.add(ExitCodes.TRANSFERRED_HELP);
        }
        if (command.equals("collect")) {
            expected.add(ExitCodes.PARTIAL_COLLECT_HELP);
        }
        for (String line : expected) {
            String text = line.substring(line.indexOf(':') + 1);
            assertTrue(help.contains(text), command + " --help lacks '" + text + "':\n" + run.out());
        }
        assertTrue(help.contains("-q, --quiet") && help.contains("-v, --verbose"), run.out());
    }

    /** README and docs/protocol.md §1 list the codes with the descriptions the help prints. */
    @Test
    void theDocumentsListTheExitCodesAsExitCodesDescribesThem() throws Exception {
        String readme = Files.readString(Path.of("..", "README.md")).replaceAll("\\s+", " ");
        String protocol = Files.readString(Path.of("..", "docs", "protocol.md")).replaceAll("\\s+", " ");
        for (String line : List.of(ExitCodes.OK_HELP, ExitCodes.FAILURE_HELP, ExitCodes.USAGE_HELP,
                ExitCodes.VERIFICATION_FAILED_HELP, ExitCodes.INTERNAL_HELP)) {
            String item = "* " + line.replaceFirst(":", " ");
            // README's 0 is collect's too (COLLECTED_HELP, below), which has no --verify off
            assertTrue(line == ExitCodes.OK_HELP || readme.contains(item), "README lacks '" + item + "'");
            assertTrue(protocol.contains(item), "docs/protocol.md lacks '" + item + "'");
        }
        for (String line : List.of(ExitCodes.COLLECTED_HELP, ExitCodes.PARTIAL_EVACUATE_HELP, ExitCodes.PARTIAL_COLLECT_HELP,
                ExitCodes.TRANSFERRED_HELP, ExitCodes.TRANSFER_UNVERIFIED_HELP)) {
            String text = line.substring(line.indexOf(':') + 1);
            assertTrue(readme.contains(text), "README lacks '" + text + "'");
        }
        for (String line : List.of(ExitCodes.TRANSFERRED_HELP, ExitCodes.TRANSFER_UNVERIFIED_HELP)) {
            String text = line.substring(line.indexOf(':') + 1);
            assertTrue(protocol.contains(text), "docs/protocol.md lacks '" + text + "'");
        }
    }

    @Test
    void withoutATerminalAMissingPasswordIsTheClearErrorItWas() throws Exception {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PasswordOption.password(Optional.empty(), null, Optional.empty(), "alice@host"));
        assertTrue(e.getMessage().contains("FSP_PASSWORD") && e.getMessage().contains("--password-file"), e.getMessage());
        // the command as run here, where the JVM has no terminal (surefire's fork)
        FspRun run = fsp("get", "fsp://alice@127.0.0.1:1/data", "-o", dir.resolve("out").toString(), "--config", "none",
                "--insecure");
        if (System.getenv(PasswordOption.ENVIRONMENT) == null && System.console() == null) {
            assertEquals(ExitCodes.USAGE, run.exit(), run.err());
            assertTrue(run.err().contains("no password"), run.err());
        }
    }

    @Test
    void withATerminalThePasswordIsAskedOnlyWhenNothingElseGivesIt() throws Exception {
        List<String> asked = new ArrayList<>();
        PasswordOption.Prompt terminal = prompt -> {
            asked.add(prompt);
            return "typed".toCharArray();
        };
        assertArrayEquals("typed".toCharArray(), PasswordOption.password(Optional.empty(), null, Optional.of(terminal), "alice@host"));
        assertEquals(List.of("Password for alice@host: "), asked);
        assertArrayEquals("env".toCharArray(), PasswordOption.password(Optional.empty(), "env", Optional.of(terminal), "alice@host"));
        Path file = Files.writeString(Files.createFile(dir.resolve("password"), OWNER_ONLY), "file\n");
        assertArrayEquals("file".toCharArray(), PasswordOption.password(Optional.of(file), "env", Optional.of(terminal), "alice@host"));
        assertEquals(1, asked.size(), "the terminal is asked only when neither the file nor $FSP_PASSWORD gives it");
        IllegalArgumentException ended = assertThrows(IllegalArgumentException.class,
                () -> PasswordOption.password(Optional.empty(), null, Optional.of(prompt -> null), "alice@host"));
        assertTrue(ended.getMessage().contains("ended"), ended.getMessage());
    }

    @Test
    void aRerunHelpsAfterAnInterruptionNotAfterARefusal() {
        assertTrue(Rerun.helps(new SocketException("Connection reset")));
        assertTrue(Rerun.helps(new ControlException("control connection closed by the server")));
        assertTrue(Rerun.helps(new ControlException("FRET x: 421 shutting down", 421, null)));
        assertFalse(Rerun.helps(new ControlException("login as alice: server answered 530", 530, null)));
        assertFalse(Rerun.helps(new ControlException("FRET missing: server answered 550", 550, null)));
        assertFalse(Rerun.helps(new SSLHandshakeException("certificate not trusted")));
        assertFalse(Rerun.helps(new java.io.IOException("h:1", new java.net.ConnectException("refused"))));
    }
}

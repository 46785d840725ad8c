package io.fsp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fsp.config.ConfigLoader;
import io.fsp.server.auth.PasswordHasher;
import io.fsp.server.config.ServerConfig;
import io.fsp.server.config.ServerSettings;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The {@code fsp-server} command line: its contract with scripts (output line, exit codes, messages). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServerCommandTest {
    private static final Pattern LISTENING = Pattern.compile(
            "fsp-server: listening on (127\\.0\\.0\\.1|\\[::1]):(\\d+), certificate sha256 ([0-9A-F]{2}(:[0-9A-F]{2}){31})");

    @TempDir
    Path tmp;
    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();

    private CommandLine cli(ServerCommand command) {
        return new CommandLine(command).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true));
    }

    @Test
    void printsOneListeningLinePerAddressAndServes() throws Exception {
        ServerCommand command = new ServerCommand();
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> cli(command).execute(
                "--listen", "127.0.0.1:0", "--listen", "[::1]:0", "--root", tmp.toString(), "--user", "alice:secret",
                "--state-dir", tmp.resolve("state").toString(), "--quiet"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (out.toString().lines().count() < 2 && System.nanoTime() < deadline && !exit.isDone()) {
            Thread.sleep(50);
        }
        String[] lines = out.toString().split("\n");
        assertEquals(2, lines.length, out + " / " + err);
        Matcher v4 = LISTENING.matcher(lines[0]);
        Matcher v6 = LISTENING.matcher(lines[1]);
        assertTrue(v4.matches(), lines[0]);
        assertTrue(v6.matches(), lines[1]);
        assertEquals("[::1]", v6.group(1));
        assertEquals(v4.group(3), v6.group(3), "one certificate");
        assertTrue(Files.exists(tmp.resolve("state/server-cert.pem")), "generated certificate kept");
        try (Socket s = new Socket("127.0.0.1", Integer.parseInt(v4.group(2)));
             BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))) {
            assertEquals("220 FSP FTP server ready", in.readLine());
        }
        command.stop.countDown();
        assertEquals(0, exit.get(20, TimeUnit.SECONDS));
    }

    private static final Pattern FINGERPRINT_LINE = Pattern.compile("[0-9A-F]{2}(:[0-9A-F]{2}){31}\n");

    private String fingerprint(String... args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        String[] all = new String[args.length + 1];
        all[0] = "fingerprint";
        System.arraycopy(args, 0, all, 1, args.length);
        assertEquals(0, cli(new ServerCommand()).execute(all), err.toString());
        assertTrue(FINGERPRINT_LINE.matcher(out.toString()).matches(), out.toString());
        return out.toString().trim();
    }

    @Test
    void fingerprintCreatesTheCertificateOnceAndServingUsesIt() throws Exception {
        Path state = tmp.resolve("state");
        String first = fingerprint("--state-dir", state.toString());
        assertTrue(Files.exists(state.resolve("server-cert.pem")));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(state.resolve("server-key.pem"))));
        assertEquals(first, fingerprint("--state-dir", state.toString()), "the same certificate");

        out.getBuffer().setLength(0);
        ServerCommand command = new ServerCommand();
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> cli(command).execute(
                "--listen", "127.0.0.1:0", "--root", tmp.toString(), "--user", "alice:secret",
                "--state-dir", state.toString(), "--quiet"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (out.toString().isEmpty() && System.nanoTime() < deadline && !exit.isDone()) {
            Thread.sleep(50);
        }
        command.stop.countDown();
        Matcher m = LISTENING.matcher(out.toString().trim());
        assertTrue(m.matches(), out + " / " + err);
        assertEquals(first, m.group(3), "serving uses the certificate fingerprint created");
        assertEquals(0, exit.get(20, TimeUnit.SECONDS));
    }

    @Test
    void fingerprintReadsTheConfigurationAndOpensNoSocket() throws Exception {
        Path state = tmp.resolve("state");
        String created = fingerprint("--state-dir", state.toString());
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Path conf = Files.writeString(tmp.resolve("server.conf"), "listen = 127.0.0.1:" + taken.getLocalPort()
                    + "\nstate-dir = " + state + "\n");
            assertEquals(created, fingerprint("--config", conf.toString()), "state-dir from the file, listen port taken");
            Path other = tmp.resolve("other");
            String given = fingerprint("--config", conf.toString(), "--state-dir", other.toString());
            assertTrue(!given.equals(created) && Files.exists(other.resolve("server-key.pem")), "the command line wins");
            assertEquals(given, fingerprint("--config", conf.toString(), "--certificate",
                    other.resolve("server-cert.pem").toString(), "--private-key", other.resolve("server-key.pem").toString()),
                    "configured certificate files");
        }
        assertEquals(2, cli(new ServerCommand()).execute("fingerprint", "--certificate", "x.pem"));
        assertTrue(err.toString().contains("only one is set"), err.toString());
    }

    @Test
    void fingerprintRefusesAPrivateKeyOthersCanReadLikeServing() throws Exception {
        Path state = tmp.resolve("state");
        fingerprint("--state-dir", state.toString());
        Path key = state.resolve("server-key.pem");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        assertEquals(1, cli(new ServerCommand()).execute("fingerprint", "--state-dir", state.toString()));
        assertEquals("", out.toString());
        String refusal = err.toString();
        assertTrue(refusal.startsWith("fsp-server: " + key + ": private key open to its group or others"), refusal);
        err.getBuffer().setLength(0);
        assertEquals(1, cli(new ServerCommand()).execute("--listen", "127.0.0.1:0", "--root", tmp.toString(),
                "--user", "alice:secret", "--state-dir", state.toString(), "--quiet"));
        assertEquals(refusal, err.toString(), "the same refusal as serving");
    }

    @Test
    void unknownConfigKeyIsAUsageErrorNamingFileLineAndKey() throws Exception {
        Path conf = Files.writeString(tmp.resolve("server.conf"), "# test\nlisten = 127.0.0.1:0\nlisten-port = 21\n");
        assertEquals(2, cli(new ServerCommand()).execute("--config", conf.toString()));
        assertTrue(err.toString().startsWith("fsp-server: " + conf + ":3: unknown key 'listen-port' (expected one of: listen,"),
                err.toString());
    }

    @Test
    void badOptionValuesAreUsageErrors() {
        assertEquals(2, cli(new ServerCommand()).execute("--listen", "nowhere"));
        assertTrue(err.toString().contains("'nowhere' (expected: HOST:PORT"), err.toString());
        assertEquals(2, cli(new ServerCommand()).execute("--passive-ports", "60000-50000", "--root", tmp.toString()));
        assertTrue(err.toString().contains("port range is empty (expected: low <= high)"), err.toString());
        assertEquals(2, cli(new ServerCommand()).execute("--no-such-option"));
        assertEquals(2, cli(new ServerCommand()).execute("--socket-buffer", "100", "--root", tmp.toString()));
        assertTrue(err.toString().contains("socket-buffer: 100 (expected: 0 for the kernel's autotuning, or"),
                err.toString());
        assertEquals(2, cli(new ServerCommand()).execute("--max-retain", "30s", "--root", tmp.toString()));
        assertTrue(err.toString().contains("max-retain: 30s (expected: >= 1m)"), err.toString());
        assertEquals(2, cli(new ServerCommand()).execute("--retain-user", "anonymous=7d", "--root", tmp.toString()));
        assertTrue(err.toString().contains("retain-user: anonymous (expected: a named user; anonymous users never retain)"),
                err.toString());
        assertEquals(2, cli(new ServerCommand()).execute("--retain-user", "alice", "--root", tmp.toString()));
        assertTrue(err.toString().contains("retain-user: 'alice' (expected: NAME=DURATION, e.g. alice=7d)"), err.toString());
        assertEquals(2, cli(new ServerCommand()).execute("--retain-user", "alice=7d", "--retain-user", "alice=1d",
                "--root", tmp.toString()));
        assertTrue(err.toString().contains("retain-user: a user named twice"), err.toString());
    }

    @Test
    void refusesToStartWithoutUsers() {
        assertEquals(2, cli(new ServerCommand()).execute("--listen", "127.0.0.1:0", "--root", tmp.toString(),
                "--state-dir", tmp.resolve("state").toString()));
        assertTrue(err.toString().contains("no users"), err.toString());
    }

    /**
     * Settings that do not fit together, or a users file the server cannot take, are the user's to fix: exit 2, as
     * fsp-relay answers a bad configuration, with a message naming the key (the users file by its file and line).
     */
    @Test
    void settingsThatDoNotFitTogetherAreUsageErrorsNamingTheKey() throws Exception {
        String state = tmp.resolve("state").toString();
        assertEquals(2, cli(new ServerCommand()).execute("--listen", "127.0.0.1:0", "--user", "alice:secret",
                "--state-dir", state));
        assertEquals("fsp-server: --user alice: needs --root DIR (the directory users see)\n", err.toString());
        err.getBuffer().setLength(0);
        Files.writeString(tmp.resolve("users"), "# users\nbob sometimes " + PasswordHasher.hash("pw") + "\n");
        Path conf = Files.writeString(tmp.resolve("server.conf"), "listen = 127.0.0.1:0\nusers-file = users\nroot = .\n");
        assertEquals(2, cli(new ServerCommand()).execute("--config", conf.toString(), "--state-dir", state));
        assertTrue(err.toString().startsWith("fsp-server: ") && err.toString().endsWith(
                "users:2: access 'sometimes' (expected: read-only or read-write)\n"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(2, cli(new ServerCommand()).execute("--listen", "127.0.0.1:0", "--root", tmp.toString(), "--user",
                "bad name:pw", "--state-dir", state));
        assertTrue(err.toString().startsWith("fsp-server: --user: user name: 'bad name' (expected:"), err.toString());
        err.getBuffer().setLength(0);
        assertEquals(2, cli(new ServerCommand()).execute("--listen", "0.0.0.0:0", "--root", tmp.toString(), "--user",
                "alice:pw", "--meridian-entry", "127.0.0.1:9", "--state-dir", state));
        assertTrue(err.toString().startsWith("fsp-server: meridian: ")
                && err.toString().contains("(expected: a concrete IP address"), err.toString());
        assertEquals("", out.toString(), "nothing served");
    }

    @Test
    void busyPortIsAFailureNamingTheAddress() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            String address = "127.0.0.1:" + taken.getLocalPort();
            assertEquals(1, cli(new ServerCommand()).execute("--listen", address, "--root", tmp.toString(),
                    "--user", "a:b", "--state-dir", tmp.resolve("state").toString()));
            assertTrue(err.toString().contains("--listen " + address + ": cannot bind"), err.toString());
        }
    }

    @Test
    void hashPasswordPrintsAVerifiableHash() {
        InputStream stdin = System.in;
        try {
            System.setIn(new ByteArrayInputStream("s3cret pass\n".getBytes(StandardCharsets.UTF_8)));
            assertEquals(0, cli(new ServerCommand()).execute("hash-password"));
        } finally {
            System.setIn(stdin);
        }
        String hash = out.toString().strip();
        assertTrue(PasswordHasher.verify(hash, "s3cret pass"), hash);
    }

    /** One name for each setting: every option but --config and the log level is a key of ServerConfig. */
    @Test
    void everyOptionIsAConfigurationKey() {
        List<String> options = new CommandLine(new ServerCommand()).getCommandSpec().options().stream()
                .filter(o -> !o.usageHelp() && !o.versionHelp())
                .map(o -> o.longestName().substring(2))
                .filter(name -> !List.of("config", "verbose", "quiet").contains(name)).sorted().toList();
        assertEquals(List.of(), options.stream().filter(o -> !ConfigLoader.keys(ServerConfig.class).contains(o)).toList(),
                "options that are not keys");
    }

    /** Sizes are written as the relay's are: 8M is 8 MiB (it was an error: "expected: an integer"). */
    @Test
    void socketBufferTakesASize() {
        ServerConfig config = ServerSettings.ALL.load(io.fsp.config.ConfigSource.of("test", java.util.Map.of("socket-buffer", List.of("8M"))));
        assertEquals(8 << 20, config.socketBufferBytes());
    }
}

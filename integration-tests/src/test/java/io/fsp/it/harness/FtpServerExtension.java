package io.fsp.it.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * One {@code fsp-server} process per test class, listening on 127.0.0.1 and ::1, serving a fresh
 * temporary root. Register it as a static field with {@code @RegisterExtension}. When a test fails
 * it prints the test's transcript and the server's output; after the class it checks that the
 * server is still running and that Netty reported no leaked buffers.
 */
public final class FtpServerExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, TestWatcher {
    public static final String USER = "alice";
    public static final String PASSWORD = "alice-secret";

    private final boolean allowPlainLogin;
    private final List<String> extraArguments = new ArrayList<>();
    private final java.util.Map<String, String> environment = new java.util.HashMap<>();
    private final Transcript transcript = new Transcript();
    private ServerProcess server;
    private TestTree tree;
    private int outputMark;

    private FtpServerExtension(boolean allowPlainLogin) {
        this.allowPlainLogin = allowPlainLogin;
    }

    /** A server that accepts PASS on an unencrypted control channel ({@code --allow-plain-login}). */
    public static FtpServerExtension plainLoginAllowed() {
        return new FtpServerExtension(true);
    }

    /** A server with default settings: PASS only after AUTH TLS. */
    public static FtpServerExtension tlsRequired() {
        return new FtpServerExtension(false);
    }

    /** More command-line options for the server (e.g. {@code --passive-ports}). */
    public FtpServerExtension with(String... arguments) {
        extraArguments.addAll(List.of(arguments));
        return this;
    }

    /** A variable for the server process's environment (e.g. {@code JAVA_TOOL_OPTIONS} for its heap). */
    public FtpServerExtension withEnvironment(String name, String value) {
        environment.put(name, value);
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        // The root sits inside a private base directory so that escape tests have a sibling
        // directory ("outside") whose content must stay unreachable.
        Path base = Files.createTempDirectory("fsp-it-");
        Path root = Files.createDirectory(base.resolve("root"));
        tree = new TestTree(base, root);
        List<String> args = new ArrayList<>(List.of(
                "--listen", "127.0.0.1:0", "--listen", "[::1]:0",
                "--root", root.toString(),
                // the generated certificate goes here, not into the home directory
                "--state-dir", base.resolve("state").toString(),
                "--user", USER + ":" + PASSWORD));
        if (allowPlainLogin) {
            args.add("--allow-plain-login");
        }
        args.addAll(extraArguments);
        server = ServerProcess.start(root, args, 2, environment);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        transcript.clear();
        transcript.add("test " + context.getDisplayName() + " against " + server.describe());
        outputMark = server.output().length();
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        String all = server == null ? "" : server.output();
        String since = all.substring(Math.min(outputMark, all.length()));
        System.err.println("==== " + context.getDisplayName() + " failed: " + cause + "\n"
                + "---- transcript ----\n" + transcript
                + "---- server output during the test ----\n" + since + "==== end");
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        if (server == null) {
            if (tree != null) {
                tree.deleteAll(); // the server never started
            }
            return;
        }
        boolean aliveAtEnd = server.isAlive();
        String description = server.describe();
        server.close();
        List<String> leaks = server.leakReports();
        tree.deleteAll();
        Optional<Throwable> failure = context.getExecutionException();
        if (failure.isEmpty()) {
            assertTrue(aliveAtEnd, () -> "fsp-server died during the tests: " + description + "\n" + server.output());
            assertEquals(List.of(), leaks, () -> "Netty reported leaked buffers:\n" + server.output());
        }
    }

    public ServerProcess server() {
        return server;
    }

    public TestTree tree() {
        return tree;
    }

    public Transcript transcript() {
        return transcript;
    }

    public String host() {
        return server.ipv4().getAddress().getHostAddress();
    }

    public int port() {
        return server.ipv4().getPort();
    }

    public int ipv6Port() {
        return server.ipv6().getPort();
    }

    /** {@code ftp://127.0.0.1:PORT/path} (path is relative to the user's root). */
    public String url(String path) {
        return "ftp://127.0.0.1:" + port() + "/" + path;
    }

    /** {@code ftp://[::1]:PORT/path}. */
    public String urlIpv6(String path) {
        return "ftp://[::1]:" + ipv6Port() + "/" + path;
    }
}

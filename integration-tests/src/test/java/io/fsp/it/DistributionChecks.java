package io.fsp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fsp.it.harness.Distribution;
import io.fsp.program.ExitCode;
import io.fsp.testkit.relay.FaultPlan;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * A distribution archive ({@code fsp-dist}, made by {@code mvn package}; each subclass unpacks one in its
 * {@code @BeforeAll}) unpacked as an operator would, with {@code tar}, and run with a Java runtime alone: a PATH of nothing but java, bash and the few tools the launcher
 * calls (no Maven, no sources, no class path from outside), an empty environment otherwise.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class DistributionChecks {
    static final Pattern FINGERPRINT = Pattern.compile("[0-9A-F]{2}(:[0-9A-F]{2}){31}");
    private static final Pattern LISTENING = Pattern.compile("fsp-relay: listening on 127\\.0\\.0\\.1:(\\d+), certificate sha256 ("
            + FINGERPRINT.pattern() + ")");
    /** What bin/launch runs besides java (bash for its #!/usr/bin/env line). */
    private static final List<String> TOOLS = List.of("bash", "dirname", "readlink", "mkdir", "rm", "mv", "grep", "stat",
            "cksum");

    @TempDir
    static Path dir;
    static Path home;
    static Path tools;

    /** Unpacks {@code archive} into {@link #home}; {@code java} on the tools' PATH or not. */
    static void unpack(String archive, boolean withJava) throws Exception {
        home = Distribution.unpack(archive, dir.resolve("opt"));
        tools = dir.resolve("tools");
        Files.createDirectories(tools);
        if (withJava) {
            Files.createSymbolicLink(tools.resolve("java"), Path.of(System.getProperty("java.home"), "bin", "java"));
        }
        for (String t : TOOLS) {
            Path found = Stream.of("/usr/bin", "/bin").map(d -> Path.of(d, t)).filter(Files::isExecutable).findFirst()
                    .orElseThrow(() -> new IllegalStateException(t + " not found in /usr/bin or /bin"));
            Files.createSymbolicLink(tools.resolve(t), found);
        }
    }

    @Test
    void holdsLaunchersLibrariesConfigurationAndUnits() {
        for (String launcher : List.of("fsp", "fsp-server", "fsp-relay", "launch")) {
            assertTrue(Files.isExecutable(home.resolve("bin").resolve(launcher)), "bin/" + launcher);
        }
        for (String jar : List.of("fsp-server", "fsp-relay", "fsp-cli", "fsp-client", "fsp-common")) {
            assertTrue(Files.isRegularFile(home.resolve("lib").resolve(jar + "-0.1.0-SNAPSHOT.jar")), "lib/" + jar);
        }
        for (String f : List.of("conf/server.conf.example", "conf/relay.conf.example", "conf/users.example",
                "conf/systemd/fsp-server.service", "conf/systemd/fsp-relay.service", "conf/grafana/fsp.json",
                "conf/prometheus/fsp-alerts.yml", "share/bash-completion/completions/fsp", "share/zsh/site-functions/_fsp",
                "share/man/man1/fsp.1", "README.md", "docs/operating.md")) {
            assertTrue(Files.isRegularFile(home.resolve(f)), f);
        }
        assertFalse(Files.exists(home.resolve("pom.xml")), "no source tree: the launchers build nothing");
    }

    /**
     * Signed jars cost every new process their signature checks and stay out of its class-data archive
     * (build/SlimJars.java): the signed libraries (Bouncy Castle, ACCP, Conscrypt) are shipped without them.
     */
    @Test
    void librariesCarryNoSignatures() throws IOException {
        Pattern signature = Pattern.compile("META-INF/[^/]+\\.(SF|RSA|DSA|EC)|META-INF/SIG-[^/]+");
        List<String> jars = new ArrayList<>();
        try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
            for (Path jar : lib.filter(p -> p.toString().endsWith(".jar")).toList()) {
                jars.add(jar.getFileName().toString());
                try (ZipFile z = new ZipFile(jar.toFile())) {
                    List<String> signatures = z.stream().map(ZipEntry::getName)
                            .filter(n -> signature.matcher(n).matches()).toList();
                    assertEquals(List.of(), signatures, jar.getFileName() + ": signature files");
                }
            }
        }
        assertTrue(jars.stream().anyMatch(j -> j.startsWith("bcprov-")), "Bouncy Castle (signed upstream) in lib/: " + jars);
        assertTrue(jars.stream().anyMatch(j -> j.startsWith("conscrypt-")), "Conscrypt (signed upstream) in lib/: " + jars);
    }

    /**
     * The native libraries shipped in {@code native/} are loaded from there (build/SlimJars.java): the jars no
     * longer carry them, and a server's start copies none out (Conscrypt copies its library into a work directory at
     * every start when its jar holds it; kept there for this test).
     */
    @Test
    void nativeLibrariesLoadFromNativeWithoutCopies() throws Exception {
        List<String> unpacked;
        try (Stream<Path> files = Files.walk(home.resolve("native"))) {
            unpacked = files.filter(Files::isRegularFile).map(f -> home.resolve("native").relativize(f).toString()).toList();
        }
        assertTrue(unpacked.contains("META-INF/native/libconscrypt_openjdk_jni-linux-x86_64.so"), "native/: " + unpacked);
        try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
            for (Path jar : lib.filter(p -> p.toString().endsWith(".jar")).toList()) {
                try (ZipFile z = new ZipFile(jar.toFile())) {
                    assertEquals(List.of(), unpacked.stream().filter(n -> z.getEntry(n) != null).toList(),
                            jar.getFileName() + ": libraries also in native/");
                }
            }
        }
        Path work = Files.createDirectories(dir.resolve("native-work"));
        Process server = builder(Map.of("FSP_JAVA_OPTS", "-Dorg.conscrypt.native.workdir=" + work
                + " -Dorg.conscrypt.native.deleteLibAfterLoading=false"), "bin/fsp-server",
                "--listen", "127.0.0.1:0", "--root", Files.createDirectories(dir.resolve("served")).toString(),
                "--user", "alice:secret", "--state-dir", dir.resolve("native-state").toString())
                .redirectErrorStream(true).start();
        try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
            StringBuilder seen = new StringBuilder();
            String crypto = null;
            for (String line; crypto == null && (line = lines.readLine()) != null; ) {
                seen.append(line).append('\n');
                crypto = line.contains("crypto: AES-GCM") ? line : null;
            }
            assertTrue(crypto != null && crypto.contains("Conscrypt") && crypto.contains("ACCP"), "native crypto loaded: " + seen);
            try (Stream<Path> copies = Files.list(work)) { // while it runs: a copy kept is deleted at the JVM's exit
                assertEquals(List.of(), copies.toList(), "libraries copied out at the start");
            }
        } finally {
            server.destroy();
            assertTrue(server.waitFor(20, TimeUnit.SECONDS), "the server stops on SIGTERM");
        }
    }

    /**
     * What {@code lib/} holds is the product: no class of the test-support module (relay faults and the relay
     * program with faults), of the benchmarks and the Meridian simulator, or of the tests.
     */
    @Test
    void shipsNoTestSupportBenchmarkOrSimulatorClass() throws Exception {
        Set<String> testkit = new TreeSet<>();
        for (String c : classes(Path.of(FaultPlan.class.getProtectionDomain().getCodeSource().getLocation().toURI()))) {
            testkit.add(c.substring(0, c.lastIndexOf('/') + 1));
        }
        assertTrue(testkit.contains("io/fsp/testkit/relay/"), "the test-support module's packages: " + testkit);
        List<String> excluded = new ArrayList<>(testkit);
        excluded.addAll(List.of("io/fsp/testkit/", "io/fsp/relay/fault/", "io/fsp/bench/", "io/fsp/meridian/sim/",
                "io/fsp/it/"));
        List<String> shipped = new ArrayList<>();
        List<String> found = new ArrayList<>();
        try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
            for (Path jar : lib.filter(p -> p.toString().endsWith(".jar")).toList()) {
                for (String c : classes(jar)) {
                    shipped.add(c);
                    if (excluded.stream().anyMatch(c::startsWith)) {
                        found.add(jar.getFileName() + "!" + c);
                    }
                }
            }
        }
        assertTrue(shipped.contains("io/fsp/relay/RelayCommand.class"), "the relay is shipped");
        assertEquals(List.of(), found, "classes of " + excluded + " in lib/");
    }

    /**
     * No hidden options: every shipped program (the main class its launcher runs) and each of its subcommands
     * name, in the {@code --help} run from the archive, every option picocli parses for them.
     */
    @Test
    void everyProgramsHelpNamesEveryOptionItTakes() throws Exception {
        Pattern launches = Pattern.compile("/launch\" (\\S+) (\\S+)");
        int checked = 0;
        for (String program : List.of("fsp", "fsp-server", "fsp-relay")) {
            Matcher m = launches.matcher(Files.readString(home.resolve("bin").resolve(program)));
            assertTrue(m.find(), "bin/" + program + " runs bin/launch MODULE MAIN_CLASS");
            java.lang.reflect.Constructor<?> main = Class.forName(m.group(2)).getDeclaredConstructor();
            main.setAccessible(true);
            Object command = main.newInstance();
            checked += helpNamesEveryOption(new CommandLine(command), List.of("bin/" + program));
        }
        assertTrue(checked >= 40, checked + " options checked");
    }

    /** Checks {@code command} and its subcommands; the number of options checked. */
    private static int helpNamesEveryOption(CommandLine command, List<String> words) throws Exception {
        List<String> run = new ArrayList<>(words);
        run.add("--help");
        Result help = runFromArchive(Map.of(), run.toArray(String[]::new));
        assertEquals(0, help.exit(), run + ": " + help);
        int checked = 0;
        for (OptionSpec o : command.getCommandSpec().options()) {
            String name = o.longestName();
            assertFalse(o.hidden(), words + ": hidden option " + name);
            assertTrue(help.out().contains(name) || o.negatable() && help.out().contains("--[no-]" + name.substring(2)),
                    run + " does not name " + name + ":\n" + help.out());
            checked++;
        }
        for (Map.Entry<String, CommandLine> sub : command.getSubcommands().entrySet()) {
            if (sub.getKey().equals(sub.getValue().getCommandName())) { // not an alias
                List<String> deeper = new ArrayList<>(words);
                deeper.add(sub.getKey());
                checked += helpNamesEveryOption(sub.getValue(), deeper);
            }
        }
        return checked;
    }

    /** The class files in a jar or a class directory, as paths ({@code io/fsp/relay/RelayCommand.class}). */
    private static List<String> classes(Path jarOrDirectory) throws IOException {
        if (Files.isDirectory(jarOrDirectory)) {
            try (Stream<Path> files = Files.walk(jarOrDirectory)) {
                return files.map(f -> jarOrDirectory.relativize(f).toString().replace('\\', '/'))
                        .filter(n -> n.endsWith(".class")).toList();
            }
        }
        try (ZipFile z = new ZipFile(jarOrDirectory.toFile())) {
            return z.stream().map(ZipEntry::getName).filter(n -> n.endsWith(".class")).toList();
        }
    }

    @Test
    void relayPrintsItsFingerprintWithoutServing() throws Exception {
        Path state = dir.resolve("relay-state");
        Result first = runFromArchive(Map.of(), "bin/fsp-relay", "fingerprint", "--state-dir", state.toString());
        assertEquals(0, first.exit(), first.toString());
        assertTrue(FINGERPRINT.matcher(first.out().strip()).matches(), first.toString());
        Result again = runFromArchive(Map.of(), "bin/fsp-relay", "fingerprint", "--state-dir", state.toString());
        assertEquals(first.out(), again.out(), "the certificate is kept");
    }

    @Test
    void clientAnswersVersionAndHelp() throws Exception {
        Result version = runFromArchive(Map.of(), "bin/fsp", "--version");
        assertEquals(0, version.exit(), version.toString());
        assertEquals("fsp 0.1.0", version.out().strip());
        Result help = runFromArchive(Map.of(), "bin/fsp", "--help");
        assertEquals(0, help.exit(), help.toString());
        assertTrue(help.out().contains("Usage: fsp") && help.out().contains("get"), help.toString());
        // JAVA_HOME instead of java on the PATH
        boolean onPath = Files.deleteIfExists(tools.resolve("java"));
        try {
            Result server = runFromArchive(Map.of("JAVA_HOME", System.getProperty("java.home")), "bin/fsp-server", "--version");
            assertEquals(0, server.exit(), server.toString());
            assertEquals("fsp-server 0.1.0", server.out().strip());
        } finally {
            if (onPath) {
                Files.createSymbolicLink(tools.resolve("java"), Path.of(System.getProperty("java.home"), "bin", "java"));
            }
        }
    }

    /**
     * A configuration the user must fix stops fsp-server as it stops fsp-relay: exit 2 and a message naming the file,
     * the line and the key, or the keys that do not fit together; nothing served.
     */
    @Test
    void serverAndRelayStopAlikeOnABadConfiguration() throws Exception {
        Path conf = Files.writeString(dir.resolve("bad.conf"), "# both programs have this key\nmax-connections = many\n");
        for (String program : List.of("fsp-server", "fsp-relay")) {
            Result r = runFromArchive(Map.of(), "bin/" + program, "--config", conf.toString());
            assertEquals(ExitCode.USAGE, r.exit(), program + ": " + r);
            assertEquals(program + ": " + conf + ":2: max-connections: 'many' (expected: an integer)\n", r.err(),
                    program + ": " + r);
            assertEquals("", r.out(), program + ": " + r);
        }
        Result noRoot = runFromArchive(Map.of(), "bin/fsp-server", "--listen", "127.0.0.1:0", "--user", "alice:secret",
                "--state-dir", dir.resolve("bad-config-state").toString());
        assertEquals(ExitCode.USAGE, noRoot.exit(), noRoot.toString());
        // after the log lines of the start-up warm-ups
        assertEquals(List.of("fsp-server: --user alice: needs --root DIR (the directory users see)"),
                noRoot.err().lines().filter(l -> l.startsWith("fsp-server:")).toList(), noRoot.toString());
        assertEquals("", noRoot.out(), noRoot.toString());
    }

    /**
     * As the service unit runs it: the archive's example configuration with the lines an operator edits, its own
     * state and store given as options, class-data sharing off.
     */
    @Test
    void relayServesFromTheArchive() throws Exception {
        Path state = dir.resolve("serving-state");
        String fingerprint = runFromArchive(Map.of(), "bin/fsp-relay", "fingerprint", "--state-dir", state.toString()).out().strip();
        String server = "AB:" + "00:".repeat(30) + "CD";
        Path conf = dir.resolve("relay.conf");
        Files.writeString(conf, Files.readString(home.resolve("conf/relay.conf.example"))
                + "listen = 127.0.0.1:0\ntrust-server = " + server + "\nquota = 1G\n");
        Process relay = builder(Map.of(), "bin/fsp-relay", "--config", conf.toString(), "--state-dir",
                state.toString(), "--store", dir.resolve("blocks").toString()).redirectErrorStream(true).start();
        try (var lines = new java.io.BufferedReader(new java.io.InputStreamReader(relay.getInputStream(), StandardCharsets.UTF_8))) {
            StringBuilder seen = new StringBuilder();
            Matcher m = null;
            for (String line; (line = lines.readLine()) != null; ) {
                seen.append(line).append('\n');
                Matcher candidate = LISTENING.matcher(line);
                if (candidate.find()) {
                    m = candidate;
                    break;
                }
            }
            assertTrue(m != null, "no listening line: " + seen);
            assertEquals(fingerprint, m.group(2), "the fingerprint printed before serving is the one served");
            assertTrue(javaEnvironment(relay).contains("MALLOC_ARENA_MAX=2"), "a daemon's native memory in two arenas");
        } finally {
            relay.destroy();
            assertTrue(relay.waitFor(20, TimeUnit.SECONDS), "the relay stops on SIGTERM");
        }
    }

    /** {@code systemd-analyze verify} of the units, with /opt/fsp where the archive was unpacked. */
    @Test
    void serviceUnitsVerify() throws Exception {
        Path analyze = Stream.of("/usr/bin/systemd-analyze", "/bin/systemd-analyze").map(Path::of)
                .filter(Files::isExecutable).findFirst().orElse(null);
        assumeTrue(analyze != null, "systemd-analyze is not installed: the units are not verified here");
        Path units = dir.resolve("units");
        Files.createDirectories(units);
        List<String> command = new ArrayList<>(List.of(analyze.toString(), "verify"));
        for (String unit : List.of("fsp-server.service", "fsp-relay.service")) {
            String text = Files.readString(home.resolve("conf/systemd").resolve(unit));
            assertTrue(text.contains("/opt/fsp/bin/"), unit + " runs the launcher of /opt/fsp");
            Files.writeString(units.resolve(unit), text.replace("/opt/fsp/", home + "/"));
            command.add(units.resolve(unit).toString());
        }
        Result verify = run(command, Map.of("PATH", System.getenv("PATH")));
        assertEquals(0, verify.exit(), verify.toString());
        assertEquals("", verify.out().strip(), "no warnings: " + verify);
    }

    record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + ", standard output:\n" + out + "\nstandard error:\n" + err;
        }
    }

    /** The environment of the JVM that {@code launched} is or started (bin/launch execs it or waits for it). */
    private static List<String> javaEnvironment(Process launched) throws IOException {
        List<ProcessHandle> candidates = new ArrayList<>(List.of(launched.toHandle()));
        launched.descendants().forEach(candidates::add);
        for (ProcessHandle h : candidates) {
            if (h.info().command().orElse("").endsWith("/java")) {
                byte[] environ = Files.readAllBytes(Path.of("/proc", Long.toString(h.pid()), "environ"));
                return List.of(new String(environ, StandardCharsets.UTF_8).split("\0"));
            }
        }
        throw new AssertionError("no java process among " + candidates);
    }

    /** Runs {@code command} to its end; standard output and error apart. */
    static Result runFromArchive(Map<String, String> environment, String... command) throws Exception {
        Path err = Files.createTempFile(dir, "stderr", ".txt");
        Process p = builder(environment, command).redirectError(err.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " did not end");
        return new Result(p.exitValue(), out, Files.readString(err));
    }

    /**
     * {@code command} in the unpacked archive, with nothing but the tools and {@code environment}; class-data
     * sharing off unless asked for (making its archive after a run takes seconds and is not what is tested).
     */
    private static ProcessBuilder builder(Map<String, String> environment, String... command) {
        ProcessBuilder b = new ProcessBuilder(command[0].startsWith("bin/")
                ? prepend(home.resolve(command[0]).toString(), command) : List.of(command));
        b.directory(dir.toFile());
        Map<String, String> env = b.environment();
        env.clear();
        env.put("PATH", tools.toString());
        env.put("HOME", dir.resolve("home").toString());
        env.put("FSP_CDS", "off");
        env.putAll(environment);
        return b;
    }

    private static List<String> prepend(String first, String[] command) {
        List<String> all = new ArrayList<>(List.of(first));
        all.addAll(List.of(command).subList(1, command.length));
        return all;
    }

    private static Result run(List<String> command, Map<String, String> environment) throws IOException, InterruptedException {
        ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true);
        b.environment().clear();
        b.environment().putAll(new HashMap<>(environment));
        Process p = b.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), command + " did not end");
        return new Result(p.exitValue(), out, "(with standard output)");
    }
}

package io.fsp.cli.demo;

import io.fsp.tls.Certificates;
import io.fsp.tls.KeyMaterial;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A server and relays on 127.0.0.1 as child processes, for {@code fsp demo} and {@code bin/bench-stripe}. The
 * server's certificate is made first so the relays can pin it; the relays start next and print their
 * fingerprints, which the server pins through {@code --relay HOST:PORT=FINGERPRINT}.
 */
public record LoopbackSetup(int port, String fingerprint, String password, List<String> relays) {
    private static final Pattern LISTENING = Pattern.compile("listening on (\\S+):(\\d+), certificate sha256 (\\S+)");

    public static LoopbackSetup start(Path bin, Path work, Path root, int relayCount, List<Process> children, PrintWriter out)
            throws IOException, InterruptedException {
        return start(bin, work, root, relayCount, "256M", children, out);
    }

    /** As above, each relay keeping at most {@code relayMemory} of blocks in memory before spilling to disk. */
    public static LoopbackSetup start(Path bin, Path work, Path root, int relayCount, String relayMemory, List<Process> children,
            PrintWriter out) throws IOException, InterruptedException {
        return start(bin, work, root, relayCount, relayMemory, List.of(bin.resolve("fsp-relay").toString()), children, out);
    }

    /**
     * As above, each relay started by {@code relayCommand} (a program taking {@code fsp-relay}'s options, with its
     * own leading arguments) instead of {@code bin/fsp-relay}.
     */
    public static LoopbackSetup start(Path bin, Path work, Path root, int relayCount, String relayMemory,
            List<String> relayCommand, List<Process> children, PrintWriter out) throws IOException, InterruptedException {
        Path serverState = work.resolve("server-state");
        Files.createDirectories(serverState);
        KeyMaterial serverKey = Certificates.selfSigned("fsp-server");
        Certificates.write(serverKey, serverState.resolve("server-cert.pem"), serverState.resolve("server-key.pem"));
        List<String> relaySpecs = new ArrayList<>();
        for (int i = 0; i < relayCount; i++) {
            Path dir = work.resolve("relay" + i);
            Files.createDirectories(dir);
            List<String> args = new ArrayList<>(relayCommand);
            args.addAll(List.of("--listen", "127.0.0.1:0", "--store", dir.resolve("store").toString(),
                    "--state-dir", dir.resolve("state").toString(), "--quota", "8G", "--memory", relayMemory,
                    "--trust-server", serverKey.fingerprint().toString()));
            Matcher m = launch(args, work.resolve("relay" + i + ".log"), children);
            relaySpecs.add(m.group(1) + ":" + m.group(2) + "=" + m.group(3));
            out.printf("fsp: relay %d on %s:%s%n", i, m.group(1), m.group(2));
            out.flush();
        }
        String password = HexFormat.of().formatHex(new java.security.SecureRandom().generateSeed(8));
        List<String> serverArgs = new ArrayList<>(List.of("--listen", "127.0.0.1:0", "--root", root.toString(),
                "--user", "demo:" + password, "--state-dir", serverState.toString(), "--allow-plain-login"));
        for (String r : relaySpecs) {
            serverArgs.add("--relay");
            serverArgs.add(r);
        }
        serverArgs.add(0, bin.resolve("fsp-server").toString());
        Matcher s = launch(serverArgs, work.resolve("server.log"), children);
        int port = Integer.parseInt(s.group(2));
        out.printf("fsp: server on 127.0.0.1:%d, certificate sha256 %s%n", port, s.group(3));
        out.flush();
        return new LoopbackSetup(port, s.group(3), password, relaySpecs);
    }

    /** Starts a launcher and waits for its "listening on HOST:PORT, certificate sha256 FP" line. */
    private static Matcher launch(List<String> command, Path log, List<Process> children)
            throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectError(log.toFile()).start();
        children.add(p);
        BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10); // the first run builds the module
        for (String line; (line = lines.readLine()) != null && System.nanoTime() < deadline; ) {
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                Thread drain = new Thread(() -> lines.lines().forEach(l -> { }), "drain");
                drain.setDaemon(true);
                drain.start();
                return m;
            }
        }
        throw new IOException(Path.of(command.get(0)).getFileName() + " did not start; see " + log + ":\n" + tail(log));
    }

    private static String tail(Path log) {
        try {
            List<String> l = Files.readAllLines(log);
            return String.join("\n", l.subList(Math.max(0, l.size() - 15), l.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    /** The launchers' directory: {@code $FSP_HOME/bin}, or the {@code bin/} above this jar in a checkout. */
    public static Path binDirectory() throws Exception {
        String home = System.getenv("FSP_HOME");
        if (home != null) {
            return Path.of(home, "bin");
        }
        Path jar = Path.of(LoopbackSetup.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        for (Path p = jar; p != null; p = p.getParent()) {
            if (Files.isExecutable(p.resolve("bin").resolve("fsp-server"))) {
                return p.resolve("bin");
            }
        }
        throw new IOException("cannot find bin/fsp-server above " + jar + " (set FSP_HOME to the FSP checkout)");
    }
}

package io.fsp.it.testbed;

import io.fsp.bench.CpuTime;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Wide-area links on the delay line with real FSP processes on them: a server namespace ({@code srv}), a client
 * namespace ({@code cli}) and relay namespaces ({@code r1}, {@code r2}, ...), either every pair the same RTT apart or
 * with RTTs from a matrix, each namespace sending through tbf at {@code mbit}; the relays may form a Meridian
 * overlay over UDP. The programs are a tree's launchers ({@link Programs#launchers}: a copy of a built tree can be
 * measured while its sources change) or the test's class path ({@link Programs#classPath}).
 */
final class WanRig implements AutoCloseable {
    static final int SERVER = 0;
    static final int CLIENT = 1;
    /** Node index of the first relay; relay {@code i} (0-based) is node {@code FIRST_RELAY + i}. */
    static final int FIRST_RELAY = 2;
    /** Each relay's TCP block port, and its Meridian node's UDP port when it joins the overlay. */
    static final int RELAY_PORT = 7000;
    private static final Pattern FINGERPRINT = Pattern.compile("certificate sha256 ([0-9A-Fa-f:]+)");
    private static final Pattern JSON_SECONDS = Pattern.compile("\"seconds\":([0-9.]+)");

    final DelayLine line;
    private final Programs programs;
    private final Path work;
    private final String password = Long.toHexString(new SplittableRandom().nextLong() & Long.MAX_VALUE);
    private final List<String> relaySpecs = new ArrayList<>();
    private String fingerprint;

    /** The command lines that start fsp-server, fsp-relay and the fsp client. */
    record Programs(List<String> server, List<String> relay, List<String> client) {
        /** {@code home/bin/fsp-server}, {@code fsp-relay} and {@code fsp}, as a user runs them. */
        static Programs launchers(Path home) {
            return new Programs(List.of(home.resolve("bin/fsp-server").toString()),
                    List.of(home.resolve("bin/fsp-relay").toString()), List.of(home.resolve("bin/fsp").toString()));
        }

        /** The main classes on {@code classPath}, run by this JVM's java. */
        static Programs classPath(String classPath) {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            return new Programs(List.of(java, "-cp", classPath, "io.fsp.server.ServerCommand"),
                    List.of(java, "-cp", classPath, "io.fsp.relay.RelayCommand"),
                    List.of(java, "-cp", classPath, "io.fsp.cli.FspCli"));
        }
    }

    /** What one client process did: wall time of the whole process, its CPU time, fsp get's own clock (or -1). */
    record Run(double wallSeconds, double cpuSeconds, double ownSeconds, String output) {
    }

    private WanRig(DelayLine line, Programs programs, Path work) {
        this.line = line;
        this.programs = programs;
        this.work = work;
    }

    /**
     * Builds the namespaces, shapes every one to {@code mbit} with a queue of {@code queueMs}, sets TCP's buffer
     * limits ({@code tcpRmem}, {@code tcpWmem}: sysctl values, null to leave the namespace's own), makes the
     * server's certificate and starts the relays.
     */
    static WanRig start(Programs programs, Path work, int relays, double rttMs, double mbit, double queueMs, String tcpRmem,
                        String tcpWmem) throws IOException, InterruptedException {
        double[][] rtt = new double[FIRST_RELAY + relays][FIRST_RELAY + relays];
        for (int i = 0; i < rtt.length; i++) {
            for (int j = 0; j < rtt.length; j++) {
                rtt[i][j] = i == j ? 0 : rttMs;
            }
        }
        return start(programs, work, rtt, mbit, queueMs, tcpRmem, tcpWmem, false);
    }

    /**
     * As {@link #start(Programs, Path, int, double, double, double, String, String)} with the RTTs of
     * {@code rttMs} (symmetric; node 0 the server, 1 the client, the others relays). With {@code overlay} the
     * relays join a Meridian overlay over UDP on their block port: the first is the node the others join through.
     */
    static WanRig start(Programs programs, Path work, double[][] rttMs, double mbit, double queueMs, String tcpRmem,
                        String tcpWmem, boolean overlay) throws IOException, InterruptedException {
        List<String> names = new ArrayList<>(List.of("srv", "cli"));
        for (int i = 1; i <= rttMs.length - FIRST_RELAY; i++) {
            names.add("r" + i);
        }
        DelayLine line = DelayLine.start(names, rttMs, 0);
        WanRig rig = new WanRig(line, programs, work);
        try {
            for (int node = 0; node < names.size(); node++) {
                line.shape(node, mbit, queueMs);
                if (tcpRmem != null) {
                    line.sysctl(node, "net.ipv4.tcp_rmem", tcpRmem);
                }
                if (tcpWmem != null) {
                    line.sysctl(node, "net.ipv4.tcp_wmem", tcpWmem);
                }
            }
            rig.certificate();
            rig.startRelays(overlay);
            return rig;
        } catch (IOException | InterruptedException | RuntimeException e) {
            rig.close();
            throw e;
        }
    }

    /** A file of {@code bytes} random bytes under the server's root. */
    Path dataFile(String name, long bytes) throws IOException {
        Path file = work.resolve("data").resolve(name);
        Files.createDirectories(file.getParent());
        SplittableRandom random = new SplittableRandom(bytes);
        byte[] chunk = new byte[1 << 20];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long left = bytes; left > 0; left -= chunk.length) {
                for (int i = 0; i < chunk.length; i += 8) {
                    long v = random.nextLong();
                    for (int k = 0; k < 8; k++) {
                        chunk[i + k] = (byte) (v >>> (8 * k));
                    }
                }
                out.write(chunk, 0, (int) Math.min(left, chunk.length));
            }
        }
        return file;
    }

    /**
     * Starts a server on {@code port} serving the data directory, with every relay or none; returns its process
     * (the server's JVM: CPU time from /proc).
     */
    Process startServer(int port, boolean withRelays, String... extra) throws IOException, InterruptedException {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; withRelays && i < relaySpecs.size(); i++) {
            all.add(i);
        }
        return startServer(port, all, extra);
    }

    /** As {@link #startServer(int, boolean, String...)} with the given relays (0-based) as its static list. */
    Process startServer(int port, List<Integer> relays, String... extra) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(programs.server);
        command.addAll(List.of("--listen", line.address(SERVER) + ":" + port, "--root", work.resolve("data").toString(),
                "--user", "bench:" + password, "--state-dir", work.resolve("srv-state-" + port).toString(),
                "--certificate", work.resolve("cert.pem").toString(), "--private-key",
                work.resolve("key.pem").toString(), "--allow-plain-login"));
        for (int relay : relays) {
            command.addAll(List.of("--relay", relaySpecs.get(relay)));
        }
        command.addAll(List.of(extra));
        return spawn(SERVER, serverName(port), command);
    }

    /** What the server on {@code port} has logged so far. */
    String serverLog(int port) throws IOException {
        return Files.readString(work.resolve(serverName(port) + ".log"), StandardCharsets.UTF_8);
    }

    private static String serverName(int port) {
        return "server-" + port;
    }

    /** Number of relays. */
    int relays() {
        return relaySpecs.size();
    }

    /** Relay {@code relay}'s certificate fingerprint, as the server's --trust-relay takes it. */
    String relayFingerprint(int relay) {
        String spec = relaySpecs.get(relay);
        return spec.substring(spec.indexOf('=') + 1);
    }

    /** The address of relay {@code relay}'s Meridian node (with an overlay), as --meridian-entry takes it. */
    String meridianAddress(int relay) {
        return line.address(FIRST_RELAY + relay) + ":" + RELAY_PORT;
    }

    /**
     * Runs {@code fsp get} of {@code remote} from the server on {@code port} in the client namespace, timed from
     * outside (wall and CPU time of the whole process, as a user runs it); the received file is {@code dest}.
     */
    Run get(int port, String remote, Path dest, String... options) throws IOException, InterruptedException {
        Files.deleteIfExists(dest);
        List<String> command = new ArrayList<>(programs.client);
        command.addAll(List.of("get", "fsp://bench@" + line.address(SERVER) + ":" + port + "/" + remote, "-o",
                dest.toString(), "--trust", fingerprint, "--json"));
        command.addAll(List.of(options));
        Run run = timed(CLIENT, command, 600);
        if (run.output.contains("fsp: building") || run.output.contains("fsp: making a class-data archive")) {
            Files.deleteIfExists(dest); // the launcher's own work is not the transfer's: once more
            run = timed(CLIENT, command, 600);
        }
        Matcher m = JSON_SECONDS.matcher(run.output);
        return new Run(run.wallSeconds, run.cpuSeconds, m.find() ? Double.parseDouble(m.group(1)) : -1, run.output);
    }

    /** curl over plain FTP from the server on {@code port}, timed like {@link #get}. */
    Run curl(int port, String remote, Path dest) throws IOException, InterruptedException {
        Files.deleteIfExists(dest);
        return timed(CLIENT, List.of("curl", "-sS", "--epsv", "-o", dest.toString(),
                "ftp://bench:" + password + "@" + line.address(SERVER) + ":" + port + "/" + remote), 600);
    }

    /**
     * Starts vsftpd in the server's namespace on {@code port}, serving the data directory to anonymous users (plain
     * FTP, passive mode, sendfile), as {@code bin/bench-testbed} runs it beside FSP.
     */
    Process startVsftpd(int port) throws IOException, InterruptedException {
        Path empty = work.resolve("vsftpd-empty");
        Files.createDirectories(empty);
        String address = line.address(SERVER);
        Path conf = work.resolve("vsftpd.conf");
        Files.writeString(conf, String.join("\n", "listen=YES", "listen_address=" + address, "listen_port=" + port,
                "background=NO", "anonymous_enable=YES", "anon_root=" + work.resolve("data"), "no_anon_password=YES",
                "local_enable=NO", "write_enable=NO", "pasv_enable=YES", "pasv_address=" + address,
                "pasv_min_port=50200", "pasv_max_port=50299", "secure_chroot_dir=" + empty, "seccomp_sandbox=NO",
                "use_sendfile=YES") + "\n");
        readableByAll();
        Process p = launch(SERVER, "vsftpd", List.of("/usr/sbin/vsftpd", conf.toString()));
        awaitPort(p, "vsftpd", port);
        return p;
    }

    /** Starts a GridFTP server in the server's namespace on {@code port}, anonymous, as {@code bin/bench-testbed} does. */
    Process startGridftp(int port) throws IOException, InterruptedException {
        Path conf = work.resolve("gridftp.conf");
        Files.writeString(conf, "");
        readableByAll();
        String address = line.address(SERVER);
        Process p = launch(SERVER, "gridftp", List.of("globus-gridftp-server", "-c", conf.toString(), "-aa",
                "-anonymous-user", "nobody", "-control-interface", address, "-data-interface", address, "-p",
                Integer.toString(port), "-d", "ERROR,WARN"));
        awaitPort(p, "gridftp", port);
        return p;
    }

    /** curl over plain FTP from an anonymous server (vsftpd) on {@code port}, timed like {@link #get}. */
    Run curlAnonymous(int port, String remote, Path dest) throws IOException, InterruptedException {
        Files.deleteIfExists(dest);
        return timed(CLIENT, List.of("curl", "-sS", "-o", dest.toString(),
                "ftp://" + line.address(SERVER) + ":" + port + "/" + remote), 600);
    }

    /** globus-url-copy with {@code streams} parallel streams from the GridFTP server on {@code port}, timed. */
    Run globusUrlCopy(int port, int streams, String remote, Path dest) throws IOException, InterruptedException {
        Files.deleteIfExists(dest);
        return timed(CLIENT, List.of("globus-url-copy", "-p", Integer.toString(streams), "ftp://"
                + line.address(SERVER) + ":" + port + work.resolve("data").resolve(remote), "file://" + dest), 600);
    }

    /** The anonymous servers read the data directory as other users: the work directory is private (0700). */
    private void readableByAll() throws IOException, InterruptedException {
        Testbed.run("chmod", "755", work.toString());
        Testbed.run("chmod", "-R", "a+rX", work.resolve("data").toString());
    }

    /** Waits until a TCP port in the server's namespace accepts a connection from the client's. */
    private void awaitPort(Process p, String name, int port) throws IOException, InterruptedException {
        for (int i = 0; i < 300; i++) {
            if (Testbed.runs("ip", "netns", "exec", line.namespace(CLIENT), "bash", "-c",
                    "exec 3<>/dev/tcp/" + line.address(SERVER) + "/" + port)) {
                return;
            }
            if (!p.isAlive()) {
                break;
            }
            Thread.sleep(200);
        }
        throw new IOException(name + " did not start:\n" + Files.readString(work.resolve(name + ".log")));
    }

    /**
     * CPU seconds (user + system) a process and its descendants have used so far (a launcher may run the JVM as
     * its child); processes gone count 0.
     */
    static double cpuSeconds(Process p) {
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(p.toHandle()), p.descendants())
                .mapToDouble(h -> CpuTime.ofProcess(h.pid())).filter(cpu -> !Double.isNaN(cpu)).sum();
    }

    private Run timed(int node, List<String> command, long timeoutSeconds) throws IOException,
            InterruptedException {
        Path times = Files.createTempFile(work, "time", ".txt");
        Path output = Files.createTempFile(work, "out", ".txt");
        List<String> all = new ArrayList<>(List.of("/usr/bin/time", "-f", "%e %U %S", "-o", times.toString()));
        all.addAll(command);
        ProcessBuilder pb = line.command(node, all.toArray(String[]::new)).redirectErrorStream(true)
                .redirectOutput(output.toFile());
        pb.environment().put("FSP_PASSWORD", password);
        Process p = pb.start();
        p.getOutputStream().close();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + ": no exit in " + timeoutSeconds + " s:\n"
                    + Files.readString(output));
        }
        String text = Files.readString(output, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + ": exit " + p.exitValue() + "\n" + text);
        }
        String[] t = Files.readString(times).strip().split("\\s+");
        Files.delete(times);
        Files.delete(output);
        return new Run(Double.parseDouble(t[t.length - 3]), Double.parseDouble(t[t.length - 2])
                + Double.parseDouble(t[t.length - 1]), -1, text);
    }

    private void certificate() throws IOException, InterruptedException {
        Files.createDirectories(work);
        Testbed.run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-subj", "/CN=fsp-server", "-days", "2", "-keyout", work.resolve("key.pem").toString(), "-out",
                work.resolve("cert.pem").toString());
        String out = Testbed.output(List.of("openssl", "x509", "-in", work.resolve("cert.pem").toString(),
                "-noout", "-fingerprint", "-sha256"), 30);
        fingerprint = out.substring(out.indexOf('=') + 1).strip();
    }

    /**
     * Starts every relay: the first alone when it is the overlay's entry, then the others at once (the machine,
     * not their order, sets how long that takes).
     */
    private void startRelays(boolean overlay) throws IOException, InterruptedException {
        int relays = line.size() - FIRST_RELAY;
        List<Process> processes = new ArrayList<>();
        for (int i = 0; i < relays; i++) {
            int node = FIRST_RELAY + i;
            Path dir = work.resolve(line.name(node));
            List<String> command = new ArrayList<>(programs.relay);
            command.addAll(List.of("--listen", line.address(node) + ":" + RELAY_PORT, "--store",
                    dir.resolve("store").toString(), "--state-dir", dir.resolve("state").toString(), "--quota", "4G",
                    "--memory", "512M", "--trust-server", fingerprint));
            if (overlay) {
                command.addAll(i == 0 ? List.of("--meridian", meridianAddress(0))
                        : List.of("--meridian-bootstrap", meridianAddress(0)));
            }
            processes.add(launch(node, line.name(node), command));
            if (overlay && i == 0 || i == relays - 1) {
                for (int k = relaySpecs.size(); k <= i; k++) {
                    String log = awaitStart(processes.get(k), line.name(FIRST_RELAY + k));
                    Matcher m = FINGERPRINT.matcher(log);
                    m.find();
                    relaySpecs.add(line.address(FIRST_RELAY + k) + ":" + RELAY_PORT + "=" + m.group(1));
                }
            }
        }
    }

    private Process spawn(int node, String name, List<String> command) throws IOException, InterruptedException {
        Process p = launch(node, name, command);
        awaitStart(p, name);
        return p;
    }

    /** Starts a long-running process in the node's namespace, its output going to {@code NAME.log}. */
    private Process launch(int node, String name, List<String> command) throws IOException {
        Process p = line.command(node, command.toArray(String[]::new)).redirectErrorStream(true)
                .redirectOutput(work.resolve(name + ".log").toFile()).start();
        p.getOutputStream().close();
        return p;
    }

    /** Waits until a process {@link #launch}ed prints its address and fingerprint; returns its log so far. */
    private String awaitStart(Process p, String name) throws IOException, InterruptedException {
        Path log = work.resolve(name + ".log");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            String text = Files.readString(log, StandardCharsets.UTF_8);
            if (FINGERPRINT.matcher(text).find()) { // the launcher's line "listening on ..., certificate sha256 ..."
                return text;
            }
            if (!p.isAlive()) {
                throw new IOException(name + " exited " + p.exitValue() + ":\n" + text);
            }
            Thread.sleep(100);
        }
        p.destroyForcibly();
        throw new IOException(name + " did not start in 120 s:\n" + Files.readString(log));
    }

    @Override
    public void close() {
        line.close(); // kills every process started in its namespaces
    }
}

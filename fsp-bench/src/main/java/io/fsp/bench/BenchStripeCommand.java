package io.fsp.bench;

import io.fsp.cli.ExitCodes;
import io.fsp.cli.demo.LoopbackSetup;
import io.fsp.cli.demo.LoopbackWork;
import io.fsp.client.collect.CollectOptions;
import io.fsp.client.collect.CollectSummary;
import io.fsp.client.collect.Collector;
import io.fsp.client.verify.VerificationMode;
import io.fsp.extension.FspOption;
import io.fsp.extension.FspOptions;
import io.fsp.tls.Fingerprint;
import io.fsp.tls.PinnedTrustManager;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code fsp-bench stripe} (run by {@code bin/bench-stripe}): on one loopback setup (server and relays as
 * child processes, GridFTP beside them when installed), moves one generated file with every variant, the
 * variants interleaved run after run (A B C … A B C …) so that load drifts hit them alike, and prints the
 * median time of each as a Markdown table, followed by FIVER's overhead (paper 000, Equation 1) and the ratio
 * to GridFTP with {@code -verify-checksum}: headline from {@code bin/fsp get} as a new process (as GridFTP's
 * globus-url-copy is), the warm in-process client beside it. With {@code --memory} it instead moves one file through the
 * relays with the client as a child process too and reports the peak resident set size of every process.
 */
@Command(name = "stripe", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Loopback benchmark: FTP RETR, GridFTP, fsp get direct and via relays, verification off and on.")
public final class BenchStripeCommand implements Callable<Integer> {
    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--size-mb", defaultValue = "256", description = "File size in MiB (default: ${DEFAULT-VALUE}).")
    int sizeMb;

    @Option(names = "--runs", defaultValue = "5", description = "Runs per variant, interleaved; the median is reported (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--relays", defaultValue = "3", description = "Relays (default: ${DEFAULT-VALUE}).")
    int relayCount;

    @Option(names = "--block-size", defaultValue = "1m", description = "Block size (default: ${DEFAULT-VALUE}).")
    String blockSize;

    @Option(names = "--page-cache-writes", description = "Every fsp get writes through the page cache (as fsp get "
            + "--page-cache-writes), to compare with the default O_DIRECT writes of whole blocks.")
    boolean pageCacheWrites;

    @Option(names = "--no-gridftp", description = "Leave GridFTP out even when it is installed.")
    boolean noGridFtp;

    @Option(names = "--memory", description = "Instead of the timing table: move one file via the relays (verify fiver) "
            + "and report the peak RSS (VmHWM) of server, relays and client; set the heap with FSP_JAVA_OPTS.")
    boolean memory;

    @Option(names = "--relay-memory", defaultValue = "64M",
            description = "With --memory: each relay's in-memory block budget before it spills to disk (default: ${DEFAULT-VALUE}).")
    String relayMemory;

    private static final String FILE = "bench.bin";

    private record Variant(String name, boolean writesDest, Run run) {
    }

    @FunctionalInterface
    private interface Run {
        void once(Path dest) throws Exception;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (sizeMb < 1 || runs < 1 || runs > 50 || relayCount < 1 || relayCount > 16) {
            spec.commandLine().getErr().println("fsp-bench stripe: --size-mb >= 1, --runs 1..50, --relays 1..16");
            return ExitCodes.USAGE;
        }
        try (LoopbackWork run = LoopbackWork.create("fsp-bench-")) {
            Path work = run.dir();
            List<Process> children = run.children();
            Path data = work.resolve("data");
            Files.createDirectories(data);
            out.printf("bench-stripe: generating %d MiB of random data%n", sizeMb);
            out.flush();
            Path file = data.resolve(FILE);
            writeRandom(file, (long) sizeMb << 20);
            // GridFTP serves anonymously as "nobody": the path down to the file must be readable by others.
            for (Path p : List.of(work, data)) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
            // A relay refuses a memory budget above 3/4 of its direct memory (by default as large as its heap).
            LoopbackSetup setup = LoopbackSetup.start(LoopbackSetup.binDirectory(), work, data, relayCount,
                    memory ? relayMemory : "256M", children, out);
            if (memory) {
                return memory(out, setup, work, file, children);
            }
            int gridFtpPort = noGridFtp ? -1 : startGridFtp(work, children, out);
            return timings(out, setup, work, file, gridFtpPort, children);
        }
    }

    private int timings(PrintWriter out, LoopbackSetup setup, Path work, Path file, int gridFtpPort, List<Process> children)
            throws Exception {
        long bytes = Files.size(file);
        String ftpUrl = "ftp://demo:" + setup.password() + "@127.0.0.1:" + setup.port() + "/" + FILE;
        Map<String, Variant> variants = new LinkedHashMap<>();
        add(variants, new Variant("SHA-256 of the file only (checksum only)", false, dest -> sha256(file)));
        add(variants, new Variant("ftp RETR (curl, clear)", true, dest -> run("curl", "-sS", "--fail", "-o", dest.toString(), ftpUrl)));
        add(variants, new Variant("ftp RETR (curl, clear), then SHA-256 from disk", true, dest -> {
            run("curl", "-sS", "--fail", "-o", dest.toString(), ftpUrl);
            sha256(dest);
        }));
        add(variants, new Variant("fsp get direct only, verify off", true, dest -> get(setup, dest, true, false, VerificationMode.OFF)));
        add(variants, new Variant("fsp get direct only, verify fiver", true, dest -> get(setup, dest, true, false, VerificationMode.FIVER)));
        add(variants, new Variant("fsp get via " + relayCount + " relays, verify off", true, dest -> get(setup, dest, false, true, VerificationMode.OFF)));
        add(variants, new Variant("fsp get via " + relayCount + " relays, verify fiver", true, dest -> get(setup, dest, false, true, VerificationMode.FIVER)));
        add(variants, new Variant("same, bin/fsp get as a new process (as a user runs)", true, dest -> getInNewJvm(setup, work, dest)));
        if (gridFtpPort > 0) {
            String url = "ftp://127.0.0.1:" + gridFtpPort + file.toAbsolutePath();
            add(variants, new Variant("GridFTP globus-url-copy -p 4", true,
                    dest -> run("globus-url-copy", "-p", "4", url, "file://" + dest.toAbsolutePath())));
            add(variants, new Variant("GridFTP -p 4 -verify-checksum (MD5)", true,
                    dest -> run("globus-url-copy", "-p", "4", "-verify-checksum", url, "file://" + dest.toAbsolutePath())));
            add(variants, new Variant("GridFTP -p 4 -verify-checksum -checksum-alg SHA256", true,
                    dest -> run("globus-url-copy", "-p", "4", "-verify-checksum", "-checksum-alg", "SHA256", url,
                            "file://" + dest.toAbsolutePath())));
        }
        String before = loadAverage();
        out.printf("bench-stripe: %d MiB file, block size %s, AES-256-GCM blocks, SHA-256 block digests, %d interleaved runs, "
                + "destination a new file on disk%n", sizeMb, blockSize, runs);
        out.flush();
        // One untimed round first: the server's and relays' JIT compilers warm up on it, as they would on a
        // long-running daemon.
        for (Variant v : variants.values()) {
            Path dest = work.resolve("received.bin");
            Files.deleteIfExists(dest);
            v.run().once(dest);
        }
        out.println("bench-stripe: warm-up round done");
        out.flush();
        Map<String, double[]> times = new LinkedHashMap<>();
        Map<String, double[]> cpu = new LinkedHashMap<>();
        variants.keySet().forEach(k -> {
            times.put(k, new double[runs]);
            cpu.put(k, new double[runs]);
        });
        // Where the CPU goes in the verified striped transfer: each process of it, per run.
        String stripedName = keysOf(variants).get(6);
        Map<String, Long> pids = new LinkedHashMap<>();
        pids.put("server", children.get(relayCount).pid()); // LoopbackSetup starts the relays, then the server
        for (int r = 0; r < relayCount; r++) {
            pids.put("relay " + r, children.get(r).pid());
        }
        pids.put("client (this JVM)", ProcessHandle.current().pid());
        Map<String, double[]> perProcess = new LinkedHashMap<>();
        pids.keySet().forEach(k -> perProcess.put(k, new double[runs]));
        for (int i = 0; i < runs; i++) {
            for (Variant v : variants.values()) {
                Path dest = work.resolve("received.bin");
                Files.deleteIfExists(dest);
                Map<String, Double> processCpu = new LinkedHashMap<>();
                pids.forEach((n, pid) -> processCpu.put(n, CpuTime.ofProcess(pid)));
                double machineCpu = CpuTime.ofMachine();
                long start = System.nanoTime();
                v.run().once(dest);
                times.get(v.name())[i] = (System.nanoTime() - start) / 1e9;
                cpu.get(v.name())[i] = CpuTime.ofMachine() - machineCpu;
                if (v.name().equals(stripedName)) {
                    int run = i;
                    pids.forEach((n, pid) -> perProcess.get(n)[run] = CpuTime.ofProcess(pid) - processCpu.get(n));
                }
                if (v.writesDest() && Files.size(dest) != bytes) {
                    throw new IllegalStateException(v.name() + ": received " + Files.size(dest) + " bytes (expected: " + bytes + ")");
                }
            }
            out.printf("bench-stripe: run %d of %d done%n", i + 1, runs);
            out.flush();
        }
        Map<String, Double> median = new LinkedHashMap<>();
        out.println();
        out.printf("| %-52s | %8s | %8s | %8s | %8s | %9s |%n", "variant", "median s", "MB/s", "min s", "max s", "CPU s/GiB");
        out.printf("|%s|%s|%s|%s|%s|%s|%n", "-".repeat(54), "-".repeat(10), "-".repeat(10), "-".repeat(10), "-".repeat(10),
                "-".repeat(11));
        double gib = bytes / (double) (1L << 30);
        for (Map.Entry<String, double[]> e : times.entrySet()) {
            double[] t = e.getValue().clone();
            Arrays.sort(t);
            double m = t[runs / 2];
            median.put(e.getKey(), m);
            out.printf(Locale.ROOT, "| %-52s | %8.2f | %8.1f | %8.2f | %8.2f | %9.2f |%n", e.getKey(), m, bytes / 1e6 / m, t[0],
                    t[runs - 1], median(cpu.get(e.getKey())) / gib);
        }
        out.println();
        out.println("Timing: every row is the wall time of one run around it, by this benchmark's clock. Whole new processes as typed"
                + " (start, login, transfer, exit): curl, \"bin/fsp get as a new process\", GridFTP globus-url-copy. In this warm JVM"
                + " (no process start): the other \"fsp get\" rows (the client in-process, login included) and SHA-256 of the file.");
        out.println();
        out.println("CPU s/GiB: CPU time of the whole machine (all processes, user + system, from /proc/stat) while the variant ran,");
        out.println("per GiB moved; the machine has " + Runtime.getRuntime().availableProcessors() + " cores, so a variant can go no faster than"
                + " (CPU s/GiB) / cores seconds per GiB.");
        out.println();
        out.printf("Where the CPU goes in \"%s\" (median CPU seconds per GiB, user + system):%n", stripedName);
        out.println();
        out.printf("| %-20s | %9s |%n", "process", "CPU s/GiB");
        out.printf("|%s|%s|%n", "-".repeat(22), "-".repeat(11));
        double sum = 0;
        for (Map.Entry<String, double[]> e : perProcess.entrySet()) {
            double m = median(e.getValue()) / gib;
            sum += m;
            out.printf(Locale.ROOT, "| %-20s | %9.2f |%n", e.getKey(), m);
        }
        out.printf(Locale.ROOT, "| %-20s | %9.2f |%n", "all of them", sum);
        List<String> keys = List.copyOf(median.keySet());
        double checksum = median.get(keys.get(0));
        out.println();
        out.println("Verification overhead, paper 000 Equation 1: (t_verified - max(t_transfer_only, t_checksum_only)) / max(...)");
        out.println();
        out.printf("| %-44s | %8s |%n", "transfer", "overhead");
        out.printf("|%s|%s|%n", "-".repeat(46), "-".repeat(10));
        overhead(out, "ftp RETR, then hash from disk (sequential)", median.get(keys.get(2)), median.get(keys.get(1)), checksum);
        overhead(out, "fsp get direct only, FIVER", median.get(keys.get(4)), median.get(keys.get(3)), checksum);
        overhead(out, "fsp get via " + relayCount + " relays, FIVER", median.get(keys.get(6)), median.get(keys.get(5)), checksum);
        if (gridFtpPort > 0) {
            overhead(out, "GridFTP -verify-checksum (MD5)", median.get(keys.get(9)), median.get(keys.get(8)), checksum);
        }
        out.println();
        out.println("Timing: the fsp rows from the warm in-process client (its rows above), ftp and GridFTP from whole processes,"
                + " checksum only in this JVM: each overhead compares one client with itself.");
        if (gridFtpPort > 0) {
            double warm = median.get(keys.get(6));
            double process = median.get(keys.get(7));
            out.println();
            out.printf(Locale.ROOT, "t(GridFTP -verify-checksum) / t(bin/fsp get via %d relays, AES-GCM, FIVER), both whole new processes"
                            + " as typed: %.2f with MD5, %.2f with SHA256 (above 1: fsp faster); t(GridFTP, no verification) / t(same"
                            + " fsp get): %.2f%n", relayCount,
                    median.get(keys.get(9)) / process, median.get(keys.get(10)) / process, median.get(keys.get(8)) / process);
            out.printf(Locale.ROOT, "Beside it, not like for like (fsp get warm in this JVM, no process start; GridFTP whole processes):"
                            + " %.2f with MD5, %.2f with SHA256; no verification: %.2f%n",
                    median.get(keys.get(9)) / warm, median.get(keys.get(10)) / warm, median.get(keys.get(8)) / warm);
        } else {
            out.println();
            out.println("GridFTP left out (not installed or --no-gridftp): apt-get install -y globus-gridftp-server-progs globus-gass-copy-progs");
        }
        out.println();
        out.printf("Machine: %d cores (%s), %s, Java %s; load average before %s, after %s%n",
                Runtime.getRuntime().availableProcessors(), cpuModel(), System.getProperty("os.name") + " " + System.getProperty("os.version"),
                System.getProperty("java.version"), before, loadAverage());
        out.flush();
        return ExitCodes.OK;
    }

    private static void add(Map<String, Variant> variants, Variant v) {
        variants.put(v.name(), v);
    }

    private static void overhead(PrintWriter out, String name, double verified, double transferOnly, double checksumOnly) {
        double base = Math.max(transferOnly, checksumOnly);
        out.printf(Locale.ROOT, "| %-44s | %7.1f%% |%n", name, (verified - base) / base * 100);
    }

    /**
     * Moves the file once via the relays with the client in its own process and samples VmHWM (the peak
     * resident set size the kernel keeps per process) of every process until the client exits.
     */
    private int memory(PrintWriter out, LoopbackSetup setup, Path work, Path file, List<Process> children) throws Exception {
        Path dest = work.resolve("received.bin");
        List<String> command = getCommand(setup, dest);
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(work.resolve("client.log").toFile())
                .redirectOutput(work.resolve("client.json").toFile());
        pb.environment().put("FSP_PASSWORD", setup.password());
        long start = System.nanoTime();
        Process client = pb.start();
        Map<String, Long> names = new LinkedHashMap<>();
        names.put("server", children.get(children.size() - 1).pid());
        for (int i = 0; i < children.size() - 1; i++) {
            names.put("relay " + i, children.get(i).pid());
        }
        names.put("client (fsp get)", client.pid());
        Map<String, Long> peak = new LinkedHashMap<>();
        while (!client.waitFor(100, TimeUnit.MILLISECONDS)) {
            names.forEach((n, pid) -> peak.merge(n, vmHwmKb(pid), Math::max));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        names.forEach((n, pid) -> peak.merge(n, vmHwmKb(pid), Math::max));
        if (client.exitValue() != 0 || Files.size(dest) != Files.size(file)) {
            out.printf("bench-stripe: fsp get failed (exit %d); see %s%n%s%n", client.exitValue(), work.resolve("client.log"),
                    Files.readString(work.resolve("client.log")));
            return ExitCodes.FAILURE;
        }
        String opts = System.getenv().getOrDefault("FSP_JAVA_OPTS", "(unset: JVM default)");
        out.printf(Locale.ROOT, "bench-stripe --memory: %d MiB via %d relays, verify fiver, %.1f s; FSP_JAVA_OPTS=%s, "
                + "max heap %d MiB, file / heap = %.1f%n", sizeMb, relayCount, seconds, opts,
                Runtime.getRuntime().maxMemory() >> 20, (double) Files.size(file) / Runtime.getRuntime().maxMemory());
        out.println();
        out.printf("| %-20s | %14s |%n", "process", "peak RSS (MiB)");
        out.printf("|%s|%s|%n", "-".repeat(22), "-".repeat(16));
        peak.forEach((n, kb) -> out.printf(Locale.ROOT, "| %-20s | %14d |%n", n, kb >> 10));
        out.println();
        out.println("client summary: " + Files.readString(work.resolve("client.json")).strip());
        out.flush();
        return ExitCodes.OK;
    }

    /** VmHWM of a live process in KiB; 0 when it has gone. */
    private static long vmHwmKb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | RuntimeException e) {
            // the process exited between samples
        }
        return 0;
    }

    /** Starts an anonymous GridFTP server on 127.0.0.1 (peers.md recipe); -1 when it is not installed. */
    private static int startGridFtp(Path work, List<Process> children, PrintWriter out) throws Exception {
        if (!onPath("globus-gridftp-server") || !onPath("globus-url-copy")) {
            return -1;
        }
        Path emptyConf = work.resolve("gridftp-empty.conf");
        Files.createFile(emptyConf);
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Process p = new ProcessBuilder("globus-gridftp-server", "-c", emptyConf.toString(), "-aa", "-anonymous-user", "nobody",
                "-control-interface", "127.0.0.1", "-data-interface", "127.0.0.1", "-p", Integer.toString(port),
                "-d", "ERROR,WARN", "-l", work.resolve("gridftp.log").toString())
                .redirectErrorStream(true).redirectOutput(work.resolve("gridftp.out").toFile()).start();
        children.add(p);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
                out.printf("bench-stripe: GridFTP on 127.0.0.1:%d%n", port);
                out.flush();
                return port;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        throw new IOException("globus-gridftp-server did not start; see " + work.resolve("gridftp.out"));
    }

    private static boolean onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
                return true;
            }
        }
        return false;
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] output = p.getInputStream().readAllBytes();
        if (p.waitFor() != 0) {
            throw new IOException(command[0] + " failed (exit " + p.exitValue() + "): " + new String(output).strip());
        }
    }

    static void writeRandom(Path file, long size) throws Exception {
        java.util.Random r = new java.util.Random(7);
        byte[] chunk = new byte[1 << 20];
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            for (long left = size; left > 0; ) {
                r.nextBytes(chunk);
                int n = (int) Math.min(chunk.length, left);
                ch.write(ByteBuffer.wrap(chunk, 0, n));
                left -= n;
            }
        }
    }

    private static void sha256(Path file) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (FileChannel f = FileChannel.open(file)) {
            ByteBuffer b = ByteBuffer.allocateDirect(1 << 20);
            while (f.read(b.clear()) >= 0) {
                md.update(b.flip());
            }
        }
    }

    private void get(LoopbackSetup setup, Path dest, boolean direct, boolean relays, VerificationMode mode) throws Exception {
        CollectOptions o = new CollectOptions("127.0.0.1", setup.port(), "demo", setup.password().toCharArray(),
                "demo@127.0.0.1:" + setup.port(), "/" + FILE, dest,
                PinnedTrustManager.of(Set.of(Fingerprint.parse(setup.fingerprint()))),
                FspOptions.NONE.withText(FspOption.BLOCK_SIZE, blockSize).with(FspOption.USE_RELAYS, relays), direct, 4, mode,
                Duration.ofSeconds(30), Duration.ofSeconds(10)).withDirectWrites(!pageCacheWrites);
        CollectSummary s = new Collector(o).run();
        if (!s.complete()) {
            throw new IllegalStateException("fsp get incomplete: " + s.toText());
        }
    }

    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v[v.length / 2];
    }

    private static List<String> keysOf(Map<String, Variant> variants) {
        return List.copyOf(variants.keySet());
    }

    /** {@code bin/fsp get} of the benchmark file into {@code dest}, FIVER-verified, with a JSON summary. */
    private List<String> getCommand(LoopbackSetup setup, Path dest) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(LoopbackSetup.binDirectory().resolve("fsp").toString(), "get",
                "fsp://demo@127.0.0.1:" + setup.port() + "/" + FILE, "-o", dest.toString(), "--trust", setup.fingerprint(),
                "--block-size", blockSize, "--verify", "fiver", "--json"));
        if (pageCacheWrites) {
            command.add("--page-cache-writes");
        }
        return command;
    }

    /** The same verified transfer as a user runs it: bin/fsp get in a JVM of its own, cold JIT included. */
    private void getInNewJvm(LoopbackSetup setup, Path work, Path dest) throws Exception {
        List<String> command = getCommand(setup, dest);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(work.resolve("client.log").toFile());
        pb.environment().put("FSP_PASSWORD", setup.password());
        Process client = pb.start();
        if (client.waitFor() != 0) {
            throw new IllegalStateException("bin/fsp get failed (exit " + client.exitValue() + "): "
                    + Files.readString(work.resolve("client.log")));
        }
        if (Files.readString(work.resolve("client.log")).contains("fsp: building")) {
            throw new IllegalStateException("bin/fsp rebuilt fsp-cli during the benchmark (sources changed): its time "
                    + "includes the build; run the benchmark again");
        }
    }

    static String loadAverage() {
        try {
            return String.join(" ", Arrays.asList(Files.readString(Path.of("/proc/loadavg")).split(" ")).subList(0, 3));
        } catch (IOException e) {
            return "?";
        }
    }

    static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .findFirst().map(l -> l.substring(l.indexOf(':') + 1).strip()).orElse("?");
        } catch (IOException e) {
            return "?";
        }
    }
}

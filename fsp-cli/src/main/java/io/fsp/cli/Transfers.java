package io.fsp.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.function.LongSupplier;

/**
 * Managed transfers ({@code fsp get --detach}, and evacuate, collect, transfer): each runs in the agent on a thread of
 * its own, its output in a file, and is recorded in the user's transfers directory, so that {@code fsp status}, {@code
 * wait} and {@code cancel} find it, and so that one the agent did not finish (killed, out of memory, the machine down)
 * shows as interrupted, with the command that resumes it from its journal. Per transfer {@code ID}: {@code ID.command}
 * (working directory, then the arguments, one per line; never a password: those stay in the agent's memory),
 * {@code ID.output}, {@code ID.agent} (the pid that runs it) and, once it ended, {@code ID.exit}.
 */
final class Transfers {
    /** The commands that may run detached: the ones that move data and resume from a journal. */
    static final List<String> DETACHABLE = List.of("get", "evacuate", "collect", "transfer");

    /** The agent's transfers, while it lives (null in a command's own process). */
    private static volatile Transfers agents;

    private final Path dir;
    private final Map<String, Running> running = new ConcurrentHashMap<>();

    /** One running in this agent: its thread, its progress once the command reports it, its end. */
    static final class Running implements Invocation.Watch {
        final CountDownLatch ended = new CountDownLatch(1);
        final long startedMillis = System.currentTimeMillis();
        volatile Thread thread;
        volatile LongSupplier done = () -> 0;
        volatile LongSupplier total = () -> 0;
        volatile LongSupplier blocks;
        volatile LongSupplier recovered;

        @Override
        public void progress(LongSupplier done, LongSupplier total) {
            this.done = done;
            this.total = total;
        }

        @Override
        public void blocks(LongSupplier verified, LongSupplier recovered) {
            this.blocks = verified;
            this.recovered = recovered;
        }
    }

    /** What one record says. */
    record Record(String id, Path cwd, List<String> argv, String state, Integer exit, long startedMillis) {
        String commandLine() {
            return "fsp " + String.join(" ", argv);
        }
    }

    Transfers(Path dir) {
        this.dir = dir;
    }

    /** The agent's registry: {@code dir} is where records go. */
    static Transfers startAgent(Path dir) throws IOException {
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        agents = new Transfers(dir);
        return agents;
    }

    static Optional<Transfers> inThisAgent() {
        return Optional.ofNullable(agents);
    }

    /** The records of the directory next to the agents of {@code environment}'s user. */
    static Path directory(Path agentDir) {
        return agentDir.resolve("transfers");
    }

    /** Whether a transfer runs (the agent is not idle while one does). */
    boolean busy() {
        return !running.isEmpty();
    }

    void cancelAll() {
        running.values().forEach(r -> r.thread.interrupt());
    }

    /** A command the agent runs to its end with its output in {@code output}; returns its exit code. */
    interface Body {
        int run(OutputStream output, Running self) throws Exception;
    }

    /** Records and starts {@code argv} (run by {@code body}); returns its id. */
    String start(Path cwd, List<String> argv, Body body) throws IOException {
        String id = HexFormat.of().formatHex(randomId());
        List<String> lines = new ArrayList<>();
        lines.add(cwd.toString());
        lines.addAll(argv);
        Files.write(dir.resolve(id + ".command"), lines, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve(id + ".agent"), Long.toString(ProcessHandle.current().pid()));
        OutputStream output = Files.newOutputStream(dir.resolve(id + ".output"), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE);
        Running self = new Running();
        Thread t = new Thread(() -> {
            int exit = ExitCodes.INTERNAL;
            try (output) {
                exit = body.run(output, self);
            } catch (InterruptedException e) {
                exit = ExitCodes.INTERRUPTED;
            } catch (Exception e) {
                e.printStackTrace(System.err);
            } finally {
                try {
                    Files.writeString(dir.resolve(id + ".exit"), Integer.toString(exit));
                    Files.deleteIfExists(dir.resolve(id + ".agent"));
                } catch (IOException e) {
                    System.err.println("fsp-agent: transfer " + id + ": " + e);
                }
                running.remove(id);
                self.ended.countDown();
            }
        }, "fsp-transfer-" + id);
        self.thread = t;
        running.put(id, self);
        t.start();
        return id;
    }

    private static byte[] randomId() {
        byte[] b = new byte[4];
        new SecureRandom().nextBytes(b);
        return b;
    }

    Optional<Running> running(String id) {
        return Optional.ofNullable(running.get(id));
    }

    /** Every record in {@code dir}, oldest first. */
    static List<Record> records(Path dir) throws IOException {
        List<Record> all = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return all;
        }
        try (var files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".command")).toList()) {
                String name = f.getFileName().toString();
                record(dir, name.substring(0, name.length() - ".command".length())).ifPresent(all::add);
            }
        }
        all.sort(java.util.Comparator.comparingLong(Record::startedMillis));
        return all;
    }

    /** The record of {@code id}: running (its agent lives), done, or interrupted (its agent is gone). */
    static Optional<Record> record(Path dir, String id) throws IOException {
        if (!id.matches("[0-9a-f]{8}")) {
            return Optional.empty();
        }
        Path command = dir.resolve(id + ".command");
        if (!Files.isRegularFile(command)) {
            return Optional.empty();
        }
        List<String> lines = Files.readAllLines(command, StandardCharsets.UTF_8);
        long started = Files.getLastModifiedTime(command).toMillis();
        Path exitFile = dir.resolve(id + ".exit");
        if (Files.exists(exitFile)) {
            int exit = Integer.parseInt(Files.readString(exitFile).strip());
            return Optional.of(new Record(id, Path.of(lines.get(0)), lines.subList(1, lines.size()),
                    exit == 0 ? "done" : exit == ExitCodes.INTERRUPTED ? "cancelled" : "failed", exit, started));
        }
        boolean alive = false;
        try {
            alive = isAgent(Files.readString(dir.resolve(id + ".agent")).strip());
        } catch (IOException e) {
            // no agent runs it
        }
        return Optional.of(new Record(id, Path.of(lines.get(0)), lines.subList(1, lines.size()),
                alive ? "running" : "interrupted", null, started));
    }

    /**
     * Whether {@code pid} is a live agent: its process exists, is no zombie (a killed agent whose parent is gone may
     * stay one where nothing reaps), and is named fsp-agent (a pid used again by another program is not it).
     */
    private static boolean isAgent(String pid) {
        try {
            String stat = Files.readString(Path.of("/proc", pid, "stat"));
            int close = stat.lastIndexOf(')');
            return stat.substring(stat.indexOf('(') + 1, close).equals("fsp-agent") && stat.charAt(close + 2) != 'Z';
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    static String output(Path dir, String id) throws IOException {
        Path f = dir.resolve(id + ".output");
        return Files.exists(f) ? Files.readString(f, StandardCharsets.UTF_8) : "";
    }

    /** Forgets a finished record. */
    static void remove(Path dir, String id) throws IOException {
        for (String suffix : List.of(".command", ".output", ".exit", ".agent")) {
            Files.deleteIfExists(dir.resolve(id + suffix));
        }
    }
}

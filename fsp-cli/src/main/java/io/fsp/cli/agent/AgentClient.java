package io.fsp.cli.agent;

import java.io.Console;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.CharBuffer;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The launcher's side: finds this user's agent, starts one when none answers (one launcher at a time, under the
 * start lock), and runs a command in it as if in this process: its output to this process's stdout and stderr, its
 * prompts on this terminal, SIGINT or SIGTERM as a cancel, its exit code as this process's. Loads only
 * {@code java.base} classes and this package's few, so that a command costs little more than the JVM's start.
 */
public final class AgentClient {
    /** {@link #run}'s answer when the agent leaves the command to this process. */
    public static final int DECLINED = -1;
    /** How long a new agent may take to answer. */
    private static final long START_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** How long a cancelled command may take to wind down before the launcher leaves it. */
    private static final long CANCEL_MILLIS = 10_000;

    /** About when this launcher started (its JVM's start is a few tens of milliseconds before). */
    private static final long STARTED = System.currentTimeMillis();

    private AgentClient() {
    }

    /** A connection to the agent at {@code address}, or null if none answers there. */
    public static SocketChannel connect(AgentAddress address) {
        SocketChannel ch = null;
        try {
            ch = SocketChannel.open(StandardProtocolFamily.UNIX);
            ch.connect(UnixDomainSocketAddress.of(address.socket()));
            return ch;
        } catch (IOException e) {
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // nothing was connected
                }
            }
            return null;
        }
    }

    /**
     * A connection to the agent, started first if none answers: {@code jvmOptions} and this class path, as
     * {@code fsp-agent} (a link to this JVM's java, so that ps names it), in a session of its own (Ctrl-C on the
     * terminal does not reach it), its output to {@link AgentAddress#log}. {@code idle}: its idle time, as written.
     */
    public static SocketChannel connectOrStart(AgentAddress address, List<String> jvmOptions, String idle)
            throws IOException {
        SocketChannel ch = connect(address);
        if (ch != null) {
            return ch;
        }
        try (FileChannel lockFile = FileChannel.open(address.lock(), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock lock = lockFile.lock()) {
            ch = connect(address); // another launcher may have started it meanwhile
            if (ch != null) {
                return ch;
            }
            Process agent = start(address, jvmOptions, idle);
            long deadline = System.nanoTime() + START_NANOS;
            while (System.nanoTime() < deadline) {
                ch = connect(address);
                if (ch != null) {
                    return ch;
                }
                if (!agent.isAlive()) {
                    throw new IOException("the agent exited with " + agent.exitValue() + " as it started; see " + address.log());
                }
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            agent.destroy();
            throw new IOException("the agent did not answer in " + TimeUnit.NANOSECONDS.toSeconds(START_NANOS) + " s; see "
                    + address.log());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting the agent");
        }
    }

    private static Process start(AgentAddress address, List<String> jvmOptions, String idle)
            throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path named = address.dir().resolve("fsp-agent");
        if (!Files.isSymbolicLink(named) || !Files.readSymbolicLink(named).equals(java)) {
            Path fresh = address.dir().resolve("fsp-agent." + ProcessHandle.current().pid());
            Files.deleteIfExists(fresh);
            Files.createSymbolicLink(fresh, java);
            Files.move(fresh, named, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        List<String> command = new ArrayList<>();
        if (new File("/usr/bin/setsid").canExecute()) {
            command.add("/usr/bin/setsid");
        }
        command.add(named.toString());
        command.addAll(jvmOptions);
        command.addAll(Arrays.asList("-cp", AgentAddress.classPath(System.getenv()), "io.fsp.cli.AgentMain",
                address.dir().toString(), address.key(), idle));
        ProcessBuilder pb = new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(address.log().toFile()));
        // Never a password, nor any other command's variables: each command brings its own in its request.
        pb.environment().keySet().removeIf(name -> Request.passed(name) && !name.equals("HOME"));
        pb.environment().putIfAbsent("MALLOC_ARENA_MAX", "2");
        return pb.start();
    }

    /**
     * Runs {@code request} on {@code ch} to its end: the command's exit code, or {@link #DECLINED} (then
     * {@code declined[0]} says why). SIGINT or SIGTERM of this process cancels the command and ends this process with
     * the command's code once it has wound down.
     */
    public static int run(SocketChannel ch, Request request, String[] declined) throws IOException {
        Frames frames = UnixStreams.frames(ch);
        frames.write(Frames.HELLO, request.encode());
        OutputStream stdout = new FileOutputStream(FileDescriptor.out);
        OutputStream stderr = new FileOutputStream(FileDescriptor.err);
        CountDownLatch ended = new CountDownLatch(1);
        int[] exit = {130};
        Thread cancel = new Cancel(frames, ended, exit);
        Runtime.getRuntime().addShutdownHook(cancel);
        try {
            while (true) {
                Frames.Frame f = frames.read();
                switch (f.type()) {
                    case Frames.STDOUT -> stdout.write(f.payload());
                    case Frames.STDERR -> stderr.write(f.payload());
                    case Frames.PROMPT -> answer(frames, f.text());
                    case Frames.EXIT -> {
                        exit[0] = f.exitCode();
                        ended.countDown();
                        removeHook(cancel);
                        return exit[0];
                    }
                    case Frames.DECLINE -> {
                        declined[0] = f.text();
                        removeHook(cancel);
                        return DECLINED;
                    }
                    default -> throw new IOException("agent sent a frame of type " + f.type());
                }
            }
        } catch (IOException e) {
            ended.countDown();
            removeHook(cancel);
            throw e;
        }
    }

    /** The shutdown hook of SIGINT or SIGTERM: cancel the command, wait for its code a while, end with it. */
    private static final class Cancel extends Thread {
        private final Frames frames;
        private final CountDownLatch ended;
        private final int[] exit;

        Cancel(Frames frames, CountDownLatch ended, int[] exit) {
            super("fsp-cancel");
            this.frames = frames;
            this.ended = ended;
            this.exit = exit;
        }

        @Override
        public void run() {
            try {
                frames.write(Frames.CANCEL, new byte[0]);
                ended.await(CANCEL_MILLIS, TimeUnit.MILLISECONDS);
            } catch (IOException | InterruptedException e) {
                // ending with 130 as an interrupted process does
            }
            Runtime.getRuntime().halt(exit[0]);
        }
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running: it ends the process with the code just set
            try {
                hook.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The agent asks for a password: read it here without echo, send it, and wipe what is left of it. */
    private static void answer(Frames frames, String prompt) throws IOException {
        Console console = System.console();
        char[] typed = console == null ? null : console.readPassword("%s", prompt);
        if (typed == null) {
            frames.write(Frames.NO_ANSWER, new byte[0]);
            return;
        }
        ByteBuffer bytes = StandardCharsets.UTF_8.encode(CharBuffer.wrap(typed));
        byte[] b = new byte[bytes.remaining()];
        bytes.get(b);
        Arrays.fill(typed, '\0');
        frames.write(Frames.ANSWER, b);
        Arrays.fill(b, (byte) 0);
    }

    /** The request for this process's command: its working directory, terminal and the variables a command reads. */
    public static Request request(String key, List<String> argv, Map<String, String> env) {
        Map<String, String> passed = new java.util.TreeMap<>();
        for (Map.Entry<String, String> e : env.entrySet()) {
            if (Request.passed(e.getKey())) {
                passed.put(e.getKey(), e.getValue());
            }
        }
        return new Request(key, System.getProperty("user.dir"), System.console() != null, STARTED,
                ProcessHandle.current().pid(), List.copyOf(argv), passed);
    }
}

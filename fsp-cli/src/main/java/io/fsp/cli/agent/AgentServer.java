package io.fsp.cli.agent;

import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

/**
 * The agent: serves this user's commands on {@link AgentAddress#socket}, one thread each, until it has been idle
 * (no command running) for {@code idle}, or its socket is gone or taken over, or {@code fsp agent stop}. A peer of
 * another user is refused ({@code SO_PEERCRED}), as is a launcher that meant another agent (its key differs).
 */
public final class AgentServer {
    /** Commands at once; a launcher beyond them runs its command in its own process. */
    static final int MAX_SESSIONS = 64;

    /** Runs one command as a process of its own would. */
    public interface Runner {
        /** Why the agent leaves this command to the launcher's own process (null: the agent runs it). */
        String declines(Request request);

        /** Runs the command; returns its exit code. An interrupt of the calling thread is a cancel. */
        int run(Request request, Session session) throws Exception;

        /** Whether work the runner started outlives its session (a managed transfer): the agent is not idle then. */
        boolean busy();

        /** Cancels such work: the agent stops. */
        void cancelAll();
    }

    /** What a running command has of its launcher. */
    public interface Session {
        OutputStream stdout();

        OutputStream stderr();

        /** Asks the launcher's terminal without echo; null if its input ended. */
        char[] prompt(String text) throws IOException, InterruptedException;
    }

    private final AgentAddress address;
    private final Duration idle;
    private final Runner runner;
    private final String user = System.getProperty("user.name");
    private final long started = System.nanoTime();
    private final Set<Thread> running = ConcurrentHashMap.newKeySet();
    private final AtomicInteger sessions = new AtomicInteger();
    private volatile long lastEnd = System.nanoTime();
    private volatile boolean stopping;
    private ServerSocketChannel server;
    private Object socketFile;

    public AgentServer(AgentAddress address, Duration idle, Runner runner) {
        this.address = address;
        this.idle = idle;
        this.runner = runner;
    }

    /** Binds (the launcher that started this agent holds the start lock) and serves until it is time to end. */
    public void serve() throws IOException {
        Files.deleteIfExists(address.socket());
        server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        server.bind(UnixDomainSocketAddress.of(address.socket()));
        Files.setPosixFilePermissions(address.socket(), PosixFilePermissions.fromString("rw-------"));
        socketFile = Files.readAttributes(address.socket(), "unix:ino").get("ino");
        Thread watch = new Thread(this::watch, "fsp-agent-idle");
        watch.setDaemon(true);
        watch.start();
        System.err.println("fsp-agent " + ProcessHandle.current().pid() + " serving " + address.socket()
                + " (exits after " + idle.toSeconds() + " s idle)");
        while (!stopping) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (ClosedChannelException e) {
                break;
            }
            if (sessions.incrementAndGet() > MAX_SESSIONS) {
                sessions.decrementAndGet();
                refuse(ch, "the agent runs " + MAX_SESSIONS + " commands already");
                continue;
            }
            Thread t = new Thread(() -> session(ch), "fsp-agent-session");
            t.start();
        }
    }

    /** Ends the agent once idle long enough, or when its socket is no longer its own. */
    private void watch() {
        while (true) {
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                return;
            }
            if (runner.busy()) {
                lastEnd = System.nanoTime();
            }
            boolean idleLongEnough = sessions.get() == 0 && System.nanoTime() - lastEnd > idle.toNanos();
            if (idleLongEnough || !socketIsOurs()) {
                System.err.println("fsp-agent: " + (idleLongEnough ? "idle for " + idle.toSeconds() + " s" : "socket gone")
                        + "; exiting");
                stop();
                return;
            }
        }
    }

    private boolean socketIsOurs() {
        try {
            return socketFile.equals(Files.readAttributes(address.socket(), "unix:ino").get("ino"));
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Stops taking commands at once (a launcher that comes next starts a new agent), then in the background cancels
     * those running (their journals stay for a rerun) and ends the process.
     */
    void stop() {
        stopping = true;
        try {
            if (socketIsOurs()) {
                Files.deleteIfExists(address.socket());
            }
            server.close();
        } catch (IOException e) {
            // ending anyway
        }
        Thread end = new Thread(this::end, "fsp-agent-stop");
        end.start();
    }

    private void end() {
        running.forEach(Thread::interrupt);
        runner.cancelAll();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while ((!running.isEmpty() || runner.busy()) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                break;
            }
        }
        Runtime.getRuntime().halt(0);
    }

    private void session(SocketChannel ch) {
        boolean used = true; // a look at the agent (fsp agent status) does not keep it from its idle end
        try (ch) {
            UnixDomainPrincipal peer = ch.getOption(ExtendedSocketOptions.SO_PEERCRED);
            if (!peer.user().getName().equals(user)) {
                System.err.println("fsp-agent: refused a connection from user " + peer.user().getName());
                return;
            }
            Frames frames = UnixStreams.frames(ch);
            Frames.Frame hello = frames.read();
            if (hello.type() != Frames.HELLO) {
                throw new IOException("first frame of type " + hello.type() + " (expected: HELLO)");
            }
            Request request = Request.decode(hello.payload());
            if (!request.key().equals(address.key())) {
                frames.write(Frames.DECLINE, "this agent serves another build or namespace");
                return;
            }
            if (request.argv().size() == 2 && request.argv().get(0).equals("agent")
                    && Set.of("start", "status", "stop").contains(request.argv().get(1))) {
                used = !request.argv().get(1).equals("status");
                frames.writeExit(builtin(request, new PrintStream(frames.stream(Frames.STDOUT), true, StandardCharsets.UTF_8),
                        new PrintStream(frames.stream(Frames.STDERR), true, StandardCharsets.UTF_8)));
                return;
            }
            String declined = runner.declines(request);
            if (declined != null) {
                frames.write(Frames.DECLINE, declined);
                return;
            }
            frames.writeExit(run(request, frames));
        } catch (EOFException | ClosedChannelException e) {
            // the launcher went away
        } catch (IOException | RuntimeException e) {
            System.err.println("fsp-agent: session ended: " + e);
        } finally {
            if (used) {
                lastEnd = System.nanoTime();
            }
            sessions.decrementAndGet();
        }
    }

    /** Runs the command on this thread while another reads the launcher's frames: answers, cancel, or its end. */
    private int run(Request request, Frames frames) throws IOException {
        Thread command = Thread.currentThread();
        BlockingQueue<Frames.Frame> answers = new ArrayBlockingQueue<>(1);
        Thread reader = new Thread(() -> {
            try {
                while (true) {
                    Frames.Frame f = frames.read();
                    if (f.type() == Frames.CANCEL) {
                        command.interrupt();
                    } else if (f.type() == Frames.ANSWER || f.type() == Frames.NO_ANSWER) {
                        answers.offer(f);
                    }
                }
            } catch (IOException e) {
                command.interrupt(); // the launcher is gone (killed): its command goes too, as it did in its process
            }
        }, "fsp-agent-launcher");
        reader.setDaemon(true);
        reader.start();
        Session session = new Session() {
            @Override
            public OutputStream stdout() {
                return frames.stream(Frames.STDOUT);
            }

            @Override
            public OutputStream stderr() {
                return frames.stream(Frames.STDERR);
            }

            @Override
            public char[] prompt(String text) throws IOException, InterruptedException {
                frames.write(Frames.PROMPT, text);
                Frames.Frame answer = answers.take();
                if (answer.type() == Frames.NO_ANSWER) {
                    return null;
                }
                char[] typed = StandardCharsets.UTF_8.decode(java.nio.ByteBuffer.wrap(answer.payload())).array();
                java.util.Arrays.fill(answer.payload(), (byte) 0);
                return typed;
            }
        };
        running.add(command);
        try {
            return runner.run(request, session);
        } catch (InterruptedException e) {
            return 130;
        } catch (Exception e) {
            e.printStackTrace(new PrintStream(session.stderr(), true, StandardCharsets.UTF_8));
            return 4;
        } finally {
            running.remove(command);
            Thread.interrupted(); // a cancel that came as the command ended is not the next command's
        }
    }

    /** {@code fsp agent status|stop}. */
    private int builtin(Request request, PrintStream out, PrintStream err) {
        String verb = request.argv().size() == 2 ? request.argv().get(1) : "";
        switch (verb) {
            case "status", "start" -> {
                out.println(status());
                return 0;
            }
            case "stop" -> {
                out.println("fsp-agent " + ProcessHandle.current().pid() + " stopping"
                        + (running.isEmpty() ? "" : "; cancelled " + running.size() + " command(s), their journals kept"));
                stop();
                return 0;
            }
            default -> {
                err.println("fsp agent: expected start, status or stop");
                return 2;
            }
        }
    }

    private String status() {
        long rssKib = 0;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    rssKib = Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            // left at 0
        }
        long up = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
        return "fsp-agent pid " + ProcessHandle.current().pid() + ", up " + up + " s, " + running.size()
                + " command(s) running, RSS " + (rssKib / 1024) + " MiB, exits after " + idle.toSeconds()
                + " s idle, socket " + address.socket() + ", Java " + Runtime.version();
    }

    /** Tells a launcher beyond the limit to run its command itself. */
    private static void refuse(SocketChannel ch, String why) {
        try (ch) {
            UnixStreams.frames(ch).write(Frames.DECLINE, why);
        } catch (IOException e) {
            // it will run in-process when it finds the connection closed
        }
    }
}

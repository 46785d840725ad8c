package io.fsp.cli;

import io.fsp.cli.agent.AgentAddress;
import io.fsp.cli.agent.AgentServer;
import io.fsp.cli.agent.Request;
import io.fsp.config.Durations;
import io.fsp.crypto.NativeCrypto;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine;

/**
 * The agent's process ({@code fsp-agent DIR KEY IDLE}, started by {@link Launcher}): runs each command as
 * {@link FspCli} in a process of its own would, in the launcher's working directory, environment and terminal
 * ({@link Invocation}), its output and log lines to the launcher.
 */
public final class AgentMain implements AgentServer.Runner {
    /** The command whose log lines a thread writes: the one it runs for (set for its threads too), else the agent's log. */
    private static final InheritableThreadLocal<CommandStream> LOG = new InheritableThreadLocal<>();

    private final Transfers transfers;

    private AgentMain(Transfers transfers) {
        this.transfers = transfers;
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: AgentMain DIR KEY IDLE (started by the fsp launcher)");
            System.exit(ExitCodes.USAGE);
        }
        Duration idle = Durations.parse(args[2]);
        FspCli.configureLogging();
        NativeCrypto.loadInBackground();
        PrintStream agentLog = System.err;
        // Logging writes to System.err as it finds it at each line: the command's, for the threads of a command.
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                CommandStream command = LOG.get();
                if (command == null || !command.write(b, off, len)) {
                    agentLog.write(b, off, len);
                }
            }
        }, true, StandardCharsets.UTF_8));
        AgentMain runner = new AgentMain(Transfers.startAgent(Transfers.directory(Path.of(args[0]))));
        new AgentServer(new AgentAddress(Path.of(args[0]), args[1]), idle, runner).serve();
    }

    @Override
    public boolean busy() {
        return transfers.busy();
    }

    @Override
    public void cancelAll() {
        transfers.cancelAll();
    }

    @Override
    public String declines(Request request) {
        if (request.argv().contains("-v") || request.argv().contains("--verbose")) {
            return "--verbose sets the log level of the whole process";
        }
        if (!request.argv().isEmpty() && request.argv().get(0).equals("demo")) {
            return "the demo starts its own servers and relays";
        }
        if (!Launcher.agentWanted(request.environment(), request.argv(), Path.of(request.cwd()))) {
            return "agent = off in the client configuration";
        }
        return null;
    }

    @Override
    public int run(Request request, AgentServer.Session session) throws Exception {
        List<String> argv = new ArrayList<>(request.argv());
        int end = argv.contains("--") ? argv.indexOf("--") : argv.size();
        if (argv.subList(0, end).remove(Launcher.DETACH)) {
            return detach(request, argv, session);
        }
        Optional<PasswordOption.Prompt> prompt = request.terminal() ? Optional.of(text -> {
            try {
                return session.prompt(text);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }) : Optional.empty();
        Invocation invocation = new Invocation(Path.of(request.cwd()), request.environment(), request.terminal(), prompt,
                request.startedMillis(), request.pid(), Invocation.Watch.NONE);
        return execute(invocation, argv, session.stdout(), session.stderr());
    }

    /**
     * {@code --detach}: the command runs in the agent on a thread of its own, its output to its record
     * ({@link Transfers}), with no terminal (a password comes from $FSP_PASSWORD or --password-file); the launcher is
     * told its id at once.
     */
    private int detach(Request request, List<String> argv, AgentServer.Session session) throws IOException {
        PrintStream said = new PrintStream(session.stdout(), true, StandardCharsets.UTF_8);
        if (argv.isEmpty() || !Transfers.DETACHABLE.contains(argv.get(0))) {
            new PrintStream(session.stderr(), true, StandardCharsets.UTF_8).println("fsp: " + Launcher.DETACH
                    + " goes with " + String.join(", ", Transfers.DETACHABLE));
            return ExitCodes.USAGE;
        }
        Path cwd = Path.of(request.cwd());
        String id = transfers.start(cwd, argv, (output, self) -> {
            Invocation invocation = new Invocation(cwd, request.environment(), false, Optional.empty(),
                    System.currentTimeMillis(), ProcessHandle.current().pid(), self);
            return execute(invocation, argv, output, output);
        });
        said.println("fsp: transfer " + id + " started; fsp status " + id + " shows it, fsp wait " + id
                + " waits for its end, fsp cancel " + id + " stops it");
        return ExitCodes.OK;
    }

    /** Runs {@code args} as {@link FspCli} in its own process would, in {@code invocation}'s world. */
    private static int execute(Invocation invocation, List<String> args, OutputStream stdout, OutputStream stderr)
            throws Exception {
        CommandStream log = new CommandStream(stderr);
        PrintWriter out = new PrintWriter(new OutputStreamWriter(stdout, StandardCharsets.UTF_8), true);
        PrintWriter err = new PrintWriter(new OutputStreamWriter(stderr, StandardCharsets.UTF_8), true);
        String[] argv = args.toArray(new String[0]);
        CommandLine cli = FspCli.commandLine(argv).setOut(out).setErr(err)
                .setColorScheme(CommandLine.Help.defaultColorScheme(colors(invocation)));
        cli.registerConverter(Path.class, invocation::resolve);
        String columns = invocation.env("COLUMNS");
        if (invocation.terminal() && columns != null && columns.matches("[1-9][0-9]{1,3}")) {
            // picocli would ask the terminal, which the agent has not; it takes 55 columns at least
            cli.setUsageHelpWidth(Math.max(55, Integer.parseInt(columns)));
        }
        LOG.set(log);
        try {
            return Invocation.runAs(invocation, () -> cli.execute(argv));
        } finally {
            out.flush();
            err.flush();
            log.close();
            LOG.remove();
        }
    }

    /** Help in colour where picocli would colour it in the command's own process: on a terminal, without NO_COLOR. */
    private static CommandLine.Help.Ansi colors(Invocation invocation) {
        boolean on = invocation.terminal() && invocation.env("NO_COLOR") == null && !"dumb".equals(invocation.env("TERM"));
        return on ? CommandLine.Help.Ansi.ON : CommandLine.Help.Ansi.OFF;
    }

    /** A command's standard error for its log lines, closed when the command ends (pool threads may outlive it). */
    private static final class CommandStream {
        private final OutputStream stderr;
        private volatile boolean open = true;

        CommandStream(OutputStream stderr) {
            this.stderr = stderr;
        }

        /** Writes if the command still runs; false if it ended (the line goes to the agent's log). */
        boolean write(byte[] b, int off, int len) {
            if (!open) {
                return false;
            }
            try {
                stderr.write(b, off, len);
                return true;
            } catch (IOException e) {
                return false;
            }
        }

        void close() {
            open = false;
        }
    }
}
